package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/harnesskit/harnesskit/loopguard"
	"github.com/harnesskit/harnesskit/webfetch"
)

// fakeWeb answers requests from a handler in process: no socket, no network. The fetcher
// keeps its up-front checks of host names and literal addresses.
type fakeWeb struct{ h http.Handler }

func (w fakeWeb) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	w.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// changelogEntries makes the changelog longer than one 100,000-character window.
const changelogEntries = 2500

// site is the web of the description examples.
func site() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/guide/install", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Install</title></head><body><nav><a href="/">Docs</a></nav>
<article><h1>Install</h1><p>Install the command with the Go tool, then check that it runs and prints its version.</p>
<pre><code class="language-sh">go install example.com/tool@latest</code></pre></article></body></html>`)
	})
	mux.HandleFunc("/changelog", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Changelog</title></head><body><article><h1>Changelog</h1>`)
		for i := changelogEntries; i > 0; i-- {
			fmt.Fprintf(w, "<p>Version 1.%d fixes the parser for nested lists and quoted strings.</p>\n", i)
		}
		fmt.Fprint(w, `</article></body></html>`)
	})
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://other.example.net/page", http.StatusFound)
	})
	return mux
}

func webToolbox(t *testing.T, opts ...webfetch.Option) *tools.Toolbox {
	t.Helper()
	b, _ := toolbox(t, tools.WithWebFetch(append([]webfetch.Option{webfetch.WithUnsafeTransport(fakeWeb{site()})}, opts...)...))
	return b
}

// TestWebfetchDescriptionExamples runs every JSON example of the webfetch description
// against the in-process web: each must succeed with content.
func TestWebfetchDescriptionExamples(t *testing.T) {
	block := regexp.MustCompile("(?s)```json\n(.*?)\n```")
	b := webToolbox(t)
	tl := b.Tool("webfetch")
	ms := block.FindAllStringSubmatch(tl.Description, -1)
	if len(ms) == 0 {
		t.Fatal("the description has no JSON example")
	}
	for _, m := range ms {
		out, err := tl.Call(context.Background(), json.RawMessage(m[1]))
		if err != nil {
			t.Errorf("example %s: %v", m[1], err)
		} else if !strings.Contains(out, "status_code: 200") || !strings.Contains(out, "fixes the parser") && !strings.Contains(out, "go install") {
			t.Errorf("example %s: no page content:\n%.600s", m[1], out)
		}
	}
}

// TestWebfetchCalls: valid calls render the page; invalid input, refused addresses and
// network failures are tool errors the model can act on.
func TestWebfetchCalls(t *testing.T) {
	local := httptest.NewServer(site())
	defer local.Close()
	tests := []struct {
		name, args   string
		allowPrivate bool // the fetcher may reach loopback (the local server)
		want         []string
		wantErr      error // nil: success
	}{
		{name: "markdown_default", args: `{"url":"https://docs.example.com/guide/install"}`,
			want: []string{"---\n", "title: \"Install\"", "status_code: 200", "```sh\ngo install example.com/tool@latest\n```"}},
		{name: "text", args: `{"url":"https://docs.example.com/guide/install","format":"text"}`,
			want: []string{"go install example.com/tool@latest"}},
		{name: "html", args: `{"url":"https://docs.example.com/guide/install","format":"html"}`,
			want: []string{"<!--\n", "<code"}},
		{name: "first_window_names_next_offset", args: `{"url":"https://example.com/changelog","format":"text"}`,
			want: []string{"Version 1.2500 fixes", "next_offset"}},
		{name: "second_window", args: `{"url":"https://example.com/changelog","format":"text","offset":100000}`,
			want: []string{"Version 1.1 fixes"}},
		{name: "cross_site_redirect_named", args: `{"url":"https://example.com/elsewhere"}`,
			want: []string{"https://other.example.net/page"}},
		{name: "missing_url", args: `{}`, wantErr: tools.ErrInvalidArgs,
			want: []string{"webfetch: invalid arguments", "url", "Expected a JSON object with url (string, required), format (string), offset (integer)"}},
		{name: "bad_format", args: `{"url":"https://example.com/","format":"pdf"}`, wantErr: tools.ErrInvalidArgs, want: []string{"format"}},
		{name: "negative_offset", args: `{"url":"https://example.com/","offset":-1}`, wantErr: tools.ErrInvalidArgs, want: []string{"offset must be at least 0"}},
		{name: "misspelt_field", args: `{"URL":"https://example.com/"}`, wantErr: tools.ErrInvalidArgs, want: []string{`"URL"`, `did you mean "url"`}},
		{name: "relative_url", args: `{"url":"/guide/install"}`, wantErr: webfetch.ErrInvalidURL, want: []string{"/guide/install"}},
		{name: "ftp_url", args: `{"url":"ftp://example.com/file"}`, wantErr: webfetch.ErrInvalidURL, want: []string{"ftp"}},
		{name: "private_refused_by_default", args: `{"url":"http://10.0.0.1/admin"}`, wantErr: webfetch.ErrBlocked,
			want: []string{"10.0.0.1", "private"}},
		{name: "metadata_refused_by_default", args: `{"url":"http://169.254.169.254/latest/meta-data/"}`, wantErr: webfetch.ErrBlocked,
			want: []string{"169.254.169.254"}},
		{name: "loopback_refused_by_default", args: `{"url":"` + local.URL + `/changelog"}`, wantErr: webfetch.ErrBlocked,
			want: []string{"127.0.0.1"}},
		{name: "loopback_allowed_explicitly", args: `{"url":"` + local.URL + `/changelog","format":"text"}`, allowPrivate: true,
			want: []string{"Version 1.2500 fixes"}},
		{name: "not_found_status", args: `{"url":"` + local.URL + `/nope"}`, allowPrivate: true, wantErr: webfetch.ErrStatus,
			want: []string{"404"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b *tools.Toolbox
			switch {
			case tc.allowPrivate:
				b, _ = toolbox(t, tools.WithWebFetch(webfetch.WithSSRFPolicy(webfetch.SSRFPolicy{AllowLoopback: true, AllowPrivate: true})))
			case strings.Contains(tc.args, local.URL):
				b, _ = toolbox(t) // the real dialer with the default policy
			default:
				b = webToolbox(t)
			}
			out, err := b.Tool("webfetch").Call(context.Background(), json.RawMessage(tc.args))
			got := out
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !tools.IsToolError(err) {
					t.Fatalf("err = %v, want a tool error matching %v (result %q)", err, tc.wantErr, out)
				}
				got = err.Error()
			} else if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q missing from:\n%.1500s", w, got)
				}
			}
		})
	}
}

// TestWebfetchProgress: a large page reports progress that only grows and reaches the
// page's size.
func TestWebfetchProgress(t *testing.T) {
	big := strings.Repeat("<p>A paragraph of the long page, repeated many times over.</p>\n", 16_000)
	page := "<html><head><title>Long</title></head><body><article>" + big + "</article></body></html>"
	b, _ := toolbox(t, tools.WithWebFetch(webfetch.WithUnsafeTransport(fakeWeb{http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", fmt.Sprint(len(page)))
		fmt.Fprint(w, page)
	})})))
	var mu sync.Mutex
	var done, totals []float64
	_, err := b.Tool("webfetch").Invoke(context.Background(), tools.Invocation{
		Args: json.RawMessage(`{"url":"https://example.com/long"}`),
		Progress: func(d, total float64, msg string) {
			mu.Lock()
			defer mu.Unlock()
			done, totals = append(done, d), append(totals, total)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(done) < 2 {
		t.Fatalf("%d progress reports for a %d-byte page, want several", len(done), len(page))
	}
	for i := 1; i < len(done); i++ {
		if done[i] <= done[i-1] {
			t.Fatalf("progress does not grow: %v", done)
		}
	}
	if last := done[len(done)-1]; last != float64(len(page)) || totals[len(totals)-1] != float64(len(page)) {
		t.Fatalf("last report %v of %v, want %d of %d", last, totals[len(totals)-1], len(page), len(page))
	}
}

// TestWebfetchLoop: the same fetch with the same result three times in a row gets the
// loop guard's notice (webfetch is not refused by default: pages change). The first result
// differs from the next ones (cache_hit: false), so the notice comes with the fourth call.
func TestWebfetchLoop(t *testing.T) {
	b := webToolbox(t)
	args := json.RawMessage(`{"url":"https://docs.example.com/guide/install","format":"text"}`)
	var outs []string
	for range 6 {
		out, err := b.Tool("webfetch").Invoke(context.Background(), tools.Invocation{Session: "s", Args: args})
		if err != nil {
			t.Fatalf("call %d: %v", len(outs)+1, err)
		}
		outs = append(outs, out)
	}
	for i, out := range outs {
		if has := strings.Contains(out, loopguard.DefaultLoopMarker); has != (i >= 3) {
			t.Errorf("call %d: notice present %v\n%s", i+1, has, out)
		}
	}
}

// TestWebfetchCancelled: a call whose context ends is a host error, not a tool error.
func TestWebfetchCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	b, _ := toolbox(t, tools.WithWebFetch(webfetch.WithUnsafeTransport(fakeWeb{http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cancel()
		<-r.Context().Done()
	})})))
	_, err := b.Tool("webfetch").Call(ctx, json.RawMessage(`{"url":"https://example.com/slow"}`))
	if !errors.Is(err, context.Canceled) || tools.IsToolError(err) {
		t.Fatalf("err = %v, want a host error wrapping context.Canceled", err)
	}
}
