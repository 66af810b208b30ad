package extract

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// countdown is a context whose deadline passes after its Err has been asked n times: a clock
// that the code under test moves itself, so "stops at the deadline" is checked exactly.
type countdown struct {
	context.Context
	left atomic.Int64
}

func newCountdown(n int64) *countdown {
	c := &countdown{Context: context.Background()}
	c.left.Store(n)
	return c
}

func (c *countdown) Err() error {
	if c.left.Add(-1) < 0 {
		return context.DeadlineExceeded
	}
	return nil
}

func (c *countdown) Deadline() (time.Time, bool) { return time.Time{}, false }

func parse(t *testing.T, s string) *html.Node {
	t.Helper()
	doc, err := Parse(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestMarkdownStopsAtDeadline(t *testing.T) {
	doc := parse(t, "<body>"+strings.Repeat("<p>para <b>bold</b> <i>it</i></p>", 5000)+"</body>")
	base, _ := url.Parse("https://example.com/")
	full, err := Markdown(context.Background(), doc, MarkdownOptions{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{0, 1, 10, 100} {
		md, err := Markdown(newCountdown(n), doc, MarkdownOptions{Base: base})
		if !errors.Is(err, ErrStopped) {
			t.Fatalf("countdown %d: err %v, want ErrStopped", n, err)
		}
		// The check runs every 64 elements: after n checks at most 64(n+1) elements are
		// converted, each "para bold it" paragraph being three elements.
		if paras := strings.Count(md, "para"); paras > int(64*(n+1)/3)+1 || len(md) >= len(full) {
			t.Errorf("countdown %d: %d paragraphs converted after the deadline", n, paras)
		}
	}
}

func TestMarkdownNestingLimit(t *testing.T) {
	base, _ := url.Parse("https://example.com/")
	for _, depth := range []int{maxPrefixDepth - 1, maxPrefixDepth, maxPrefixDepth + 1, 500} {
		doc := parse(t, "<body>"+strings.Repeat("<blockquote>", depth)+"deep"+strings.Repeat("</blockquote>", depth)+"</body>")
		md, err := Markdown(context.Background(), doc, MarkdownOptions{Base: base})
		if err != nil {
			t.Fatal(err)
		}
		want := min(depth, maxPrefixDepth)
		if got := strings.Count(md, ">"); got != want || !strings.Contains(md, "deep") {
			t.Errorf("depth %d: %q has %d quote markers, want %d", depth, md, got, want)
		}
		doc = parse(t, "<body>"+strings.Repeat("<ul><li>x", depth)+"</body>")
		md, err = Markdown(context.Background(), doc, MarkdownOptions{Base: base})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(md, "- "); got != min(depth, maxPrefixDepth) || strings.Count(md, "x") != depth {
			t.Errorf("lists %d deep: %d items as list items, %d x, want %d and %d:\n%s", depth, got, strings.Count(md, "x"), min(depth, maxPrefixDepth), depth, md)
		}
	}
}

func TestMarkdownTooLarge(t *testing.T) {
	doc := parse(t, "<body>"+strings.Repeat("<p>abc</p>", 100)+"</body>")
	base, _ := url.Parse("https://example.com/")
	if _, err := Markdown(context.Background(), doc, MarkdownOptions{Base: base, Limit: 100}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err %v, want ErrTooLarge", err)
	}
	if _, err := Markdown(context.Background(), doc, MarkdownOptions{Base: base, Limit: 1000}); err != nil {
		t.Errorf("err %v", err)
	}
}

func TestSpanClamp(t *testing.T) {
	base, _ := url.Parse("https://example.com/")
	doc := parse(t, `<body><table><tr><th>h</th><th>i</th></tr><tr><td colspan="99999" rowspan="99999">x</td><td colspan="abc">y</td></tr></table></body>`)
	done := make(chan string)
	go func() {
		md, _ := Markdown(context.Background(), doc, MarkdownOptions{Base: base})
		done <- md
	}()
	select {
	case md := <-done:
		if strings.Count(md, "x") > maxSpan*maxSpan {
			t.Errorf("span repeated %d times", strings.Count(md, "x"))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("conversion of a spanning cell still running after 30 s")
	}
}
