package astsearch

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harnesskit/harnesskit/astsearch/internal/match"
	"pgregory.net/rapid"
)

// countingParser counts the parses of the files (and of the pattern) it serves.
type countingParser struct {
	treeParser
	n *atomic.Int64
}

func (p countingParser) Parse(src []byte) (*match.Tree, error) {
	p.n.Add(1)
	return p.treeParser.Parse(src)
}

func countingBackend(n *atomic.Int64) Backend {
	return &nativeBackend{factory: func(l Lang) (treeParser, error) {
		tp, err := fixtureFactory(l)
		if err != nil {
			return nil, err
		}
		return countingParser{treeParser: tp, n: n}, nil
	}}
}

// TestStreamMatchesSearch: for any tree, thread count and caps, Stream yields exactly the
// matches Search keeps, in the same (walk) order.
func TestStreamMatchesSearch(t *testing.T) {
	contents := []string{srcUtil, srcThree, srcApp, "foo(foo(1))", ""}
	rapid.Check(t, func(t *rapid.T) {
		files := map[string]string{}
		nFiles := rapid.IntRange(0, 30).Draw(t, "files")
		for i := range nFiles {
			dir := rapid.SampledFrom([]string{"", "a/", "a/b/", "c/"}).Draw(t, "dir")
			files[fmt.Sprintf("%sf%02d.js", dir, i)] = rapid.SampledFrom(contents).Draw(t, "content")
		}
		req := Request{
			Pattern:        rapid.SampledFrom([]string{"console.log($A)", "foo($$$)"}).Draw(t, "pattern"),
			Lang:           JavaScript,
			Backend:        fixtureBackend,
			Threads:        rapid.IntRange(1, 5).Draw(t, "threads"),
			MaxMatches:     rapid.IntRange(0, 12).Draw(t, "maxMatches"),
			MaxOutputBytes: rapid.SampledFrom([]int{0, 300, 1000, 2500}).Draw(t, "maxBytes"),
			Context:        rapid.IntRange(0, 2).Draw(t, "context"),
		}
		fsys := mapFS(files)
		want, err := Search(context.Background(), fsys, req)
		if err != nil {
			t.Fatal(err)
		}
		var got []Match
		for m, err := range Stream(context.Background(), fsys, req) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, m)
		}
		if !reflect.DeepEqual(got, want.Matches) {
			t.Fatalf("stream %d matches %v\nsearch %d matches %v", len(got), keysOf(got), len(want.Matches), keysOf(want.Matches))
		}
	})
}

func keysOf(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s:%d-%d", m.File, m.Range.ByteOffset.Start, m.Range.ByteOffset.End))
	}
	return out
}

// TestStreamEarlyBreakParsesLittle: a consumer that stops after the first match of a tree
// of 10,000 files must not have them all parsed: only the files read ahead (a window of a
// few dozen per worker) are. Search, for comparison, parses every file.
func TestStreamEarlyBreakParsesLittle(t *testing.T) {
	files := map[string]string{}
	for i := range 10_000 {
		files[fmt.Sprintf("d%d/f%04d.js", i/1000, i)] = srcUtil
	}
	fsys := mapFS(files)
	var parses atomic.Int64
	req := Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: countingBackend(&parses), Threads: 2}
	var first Match
	var atFirst int64
	for m, err := range Stream(context.Background(), fsys, req) {
		if err != nil {
			t.Fatal(err)
		}
		first, atFirst = m, parses.Load()
		break
	}
	after := parses.Load()
	t.Logf("parses (pattern included) when the first match came: %d, after the break: %d, of 10,000 files", atFirst, after)
	if first.File != "d0/f0000.js" {
		t.Errorf("first match in %q, want d0/f0000.js (walk order)", first.File)
	}
	// 1 pattern parse + at most the window's files in flight + the first file.
	if limit := int64(1 + windowPerWorker*2 + 1); atFirst > limit || after > limit {
		t.Errorf("parses when the first match came: %d, after the break: %d; want at most %d of 10,000 files", atFirst, after, limit)
	}
	parses.Store(0)
	if _, err := Search(context.Background(), fsys, req); err != nil {
		t.Fatal(err)
	}
	if got := parses.Load(); got != 10_001 {
		t.Errorf("Search parsed %d texts, want 10,001 (every file and the pattern)", got)
	}
}

// TestStreamEarlyBreakLeavesNoGoroutine: after a break (at the first match, in the middle,
// and with a slow consumer), every goroutine Stream started has exited. synctest fails the
// test when a goroutine of the bubble is left blocked.
func TestStreamEarlyBreakLeavesNoGoroutine(t *testing.T) {
	files := map[string]string{}
	for i := range 200 {
		files[fmt.Sprintf("f%03d.js", i)] = srcThree
	}
	fsys := mapFS(files)
	for _, tc := range []struct {
		name    string
		breakAt int
		slow    bool
	}{{"first", 1, false}, {"middle", 100, false}, {"slow_consumer", 5, true}, {"never", -1, false}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := 0
				for _, err := range Stream(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend, Threads: 3, MaxMatches: 1000}) {
					if err != nil {
						t.Fatal(err)
					}
					n++
					if tc.slow {
						time.Sleep(time.Second) // fake time: lets the workers run ahead
					}
					if n == tc.breakAt {
						break
					}
				}
				want := tc.breakAt
				if want < 0 {
					want = 600
				}
				if n != want {
					t.Errorf("got %d matches, want %d", n, want)
				}
			})
		})
	}
}

// TestStreamLimitsAndErrors: caps end the stream where Search stops keeping matches; the
// timeout ends it without an error; a cancelled context and a bad request yield an error,
// once, last.
func TestStreamLimitsAndErrors(t *testing.T) {
	fsys := mapFS(map[string]string{"a.js": srcThree, "b.js": srcThree, "c.js": srcUtil})
	base := Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		mod     func(r *Request)
		want    int
		wantErr error
	}{
		{name: "all", mod: func(*Request) {}, want: 7},
		{name: "E53_max_matches", mod: func(r *Request) { r.MaxMatches = 4 }, want: 4},
		{name: "max_output_bytes", mod: func(r *Request) { r.MaxOutputBytes = 700 }, want: -1},
		{name: "E52_timeout_no_error", mod: func(r *Request) { r.Timeout = time.Nanosecond }, want: 0},
		{name: "cancelled", ctx: cancelled, mod: func(*Request) {}, wantErr: context.Canceled},
		{name: "E45_missing_path", mod: func(r *Request) { r.Paths = []string{"nope"} }, wantErr: ErrBlocked},
		{name: "E1_bad_pattern", mod: func(r *Request) { r.Pattern = "$$$A" }, wantErr: ErrBadPattern},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			req := base
			tc.mod(&req)
			var n, errs int
			var last error
			for _, err := range Stream(ctx, fsys, req) {
				if last != nil {
					t.Fatalf("yielded after the error %v", last)
				}
				if err != nil {
					errs++
					last = err
					continue
				}
				n++
			}
			if tc.wantErr != nil {
				if errs != 1 || !errors.Is(last, tc.wantErr) {
					t.Errorf("errors %d, last %v; want one %v", errs, last, tc.wantErr)
				}
				return
			}
			if errs != 0 {
				t.Fatalf("error %v", last)
			}
			want := tc.want
			if want < 0 { // as many as Search keeps
				r, err := Search(ctx, fsys, req)
				if err != nil {
					t.Fatal(err)
				}
				if !r.Truncated || r.TruncatedReason != "max_output_bytes" {
					t.Fatalf("the case does not hit the byte cap: %+v", r)
				}
				want = len(r.Matches)
			}
			if n != want {
				t.Errorf("%d matches, want %d", n, want)
			}
		})
	}
}

// A consumer (or a Progress callback) that panics gets its panic back, promptly, and leaves
// no goroutine behind: the workers blocked on handing in a result must not hold Stream (and
// Search) in its clean-up forever.
func TestPanicInConsumerPropagates(t *testing.T) {
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf("f%02d.js", i)] = srcThree
	}
	fsys := mapFS(files)
	tests := []struct {
		name string
		run  func()
	}{
		{name: "stream_consumer", run: func() {
			for range Stream(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend, Threads: 3}) {
				panic("consumer")
			}
		}},
		{name: "search_progress", run: func() {
			_, _ = Search(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend, Threads: 3,
				Progress: func(done, total int) {
					if done == 2 {
						panic("progress")
					}
				}})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var got any
				func() {
					defer func() { got = recover() }()
					tc.run()
				}()
				if got == nil {
					t.Errorf("the panic was swallowed")
				}
			})
		})
	}
}
