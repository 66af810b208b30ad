//go:build cgo

package astsearch

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/astsearch/internal/match"
)

// watchedParser wraps a native parser: a parse of a big source announces itself on started
// and counts how it ended.
type watchedParser struct {
	treeParser
	started              chan<- struct{}
	cancelled, completed *atomic.Int32
}

const watchedSize = 1 << 20

func (p *watchedParser) done(t *match.Tree, err error) (*match.Tree, error) {
	if err != nil {
		p.cancelled.Add(1)
	} else {
		p.completed.Add(1)
	}
	return t, err
}

func (p *watchedParser) Parse(src []byte) (*match.Tree, error) {
	if len(src) < watchedSize {
		return p.treeParser.Parse(src)
	}
	p.started <- struct{}{}
	return p.done(p.treeParser.Parse(src))
}

func (p *watchedParser) ParseCandidates(src []byte, kinds []byte, lits [][]byte) (*match.Tree, error) {
	cp := p.treeParser.(candidateParser)
	if len(src) < watchedSize {
		return cp.ParseCandidates(src, kinds, lits)
	}
	p.started <- struct{}{}
	return p.done(cp.ParseCandidates(src, kinds, lits))
}

// Cancel forwards to the native parser, which must have it.
func (p *watchedParser) Cancel() { p.treeParser.(interface{ Cancel() }).Cancel() }

// deepJS is about 2.8 MB of JavaScript nested 700,000 calls deep on one line: parsing it
// whole takes seconds (about 1.1 s per 600 KB measured on the 2-core CI machine).
func deepJS() string {
	return "x = " + strings.Repeat("f(", 700_000) + strings.Repeat(")", 700_000) + ";\n"
}

// waitGoroutines waits (up to a generous bound) for the goroutine count to come back to
// at most n, and reports the count.
func waitGoroutines(n int) int {
	deadline := time.Now().Add(10 * time.Second)
	for {
		g := runtime.NumGoroutine()
		if g <= n || time.Now().After(deadline) {
			return g
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// watchedBackend is the native backend whose parsers are watched.
func watchedBackend(started chan<- struct{}, cancelled, completed *atomic.Int32) Backend {
	return &nativeBackend{factory: func(l Lang) (treeParser, error) {
		tp, err := nativeParser(l)
		if err != nil {
			return nil, err
		}
		return &watchedParser{treeParser: tp, started: started, cancelled: cancelled, completed: completed}, nil
	}}
}

// TestCancelStopsParse: cancelling the context while a worker parses a huge, deep file stops
// that parse (it ends cancelled, not completed), the search returns ctx's error and no
// goroutine is left.
func TestCancelStopsParse(t *testing.T) {
	fsys := mapFS(map[string]string{"big.js": deepJS(), "small.js": "g(1);\n"})
	var cancelled, completed atomic.Int32
	started := make(chan struct{}, 1)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	start := time.Now()
	res, err := Search(ctx, fsys, Request{Pattern: "g($A)", Lang: JavaScript, Backend: watchedBackend(started, &cancelled, &completed), Threads: 2})
	elapsed := time.Since(start)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Search = %+v, %v; want context.Canceled", res, err)
	}
	if cancelled.Load() != 1 || completed.Load() != 0 {
		t.Errorf("the big file's parse: %d cancelled, %d completed; want it cancelled mid-parse", cancelled.Load(), completed.Load())
	}
	if elapsed > 3*time.Second { // generous: the whole parse takes several seconds
		t.Errorf("Search took %v, with the context cancelled as the parse started", elapsed)
	}
	if g := waitGoroutines(before); g > before {
		t.Errorf("%d goroutines after the search, %d before", g, before)
	}
}

// TestTimeoutStopsParse: when the request's timeout fires during the parse of a huge file,
// the parse stops, the result is partial and marked "timeout", and the stopped parse is not
// counted as a parse failure (nor its file as searched).
func TestTimeoutStopsParse(t *testing.T) {
	fsys := mapFS(map[string]string{"big.js": deepJS()})
	var cancelled, completed atomic.Int32
	started := make(chan struct{}, 1)
	before := runtime.NumGoroutine()
	res, err := Search(context.Background(), fsys, Request{Pattern: "g($A)", Lang: JavaScript, Backend: watchedBackend(started, &cancelled, &completed),
		Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.TruncatedReason != "timeout" {
		t.Errorf("Truncated %v %q, want the timeout", res.Truncated, res.TruncatedReason)
	}
	if completed.Load() != 0 {
		t.Errorf("the parse completed; the timeout should have stopped it")
	}
	if res.Stats.Skipped.ParseFailed != 0 || res.Stats.Searched != 0 {
		t.Errorf("stats %+v: a stopped parse is neither a parse failure nor a searched file", res.Stats)
	}
	if g := waitGoroutines(before); g > before {
		t.Errorf("%d goroutines after the search, %d before", g, before)
	}
}

// TestBackendFindCancelStopsParse: the native Backend's Find stops a parse in progress too.
func TestBackendFindCancelStopsParse(t *testing.T) {
	var cancelled, completed atomic.Int32
	started := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	out, err := watchedBackend(started, &cancelled, &completed).Find(ctx, Query{Pattern: "g($A)", Lang: JavaScript}, []Source{{Path: "big.js", Data: []byte(deepJS())}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Find = %v, %v; want context.Canceled", out, err)
	}
	if cancelled.Load() != 1 || completed.Load() != 0 {
		t.Errorf("the parse: %d cancelled, %d completed; want it cancelled mid-parse", cancelled.Load(), completed.Load())
	}
}

// TestStreamBreakStopsParse: breaking out of Stream while a worker parses a huge file
// stops that parse too, and Stream returns without waiting for it to finish.
func TestStreamBreakStopsParse(t *testing.T) {
	fsys := mapFS(map[string]string{"a.js": "g(1);\n", "big.js": deepJS()})
	var cancelled, completed atomic.Int32
	started := make(chan struct{}, 1)
	before := runtime.NumGoroutine()
	n := 0
	for m, err := range Stream(context.Background(), fsys, Request{Pattern: "g($A)", Lang: JavaScript, Backend: watchedBackend(started, &cancelled, &completed), Threads: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		if m.File != "a.js" {
			t.Fatalf("first match in %s, want a.js", m.File)
		}
		n++
		<-started // the big file's parse is under way
		break
	}
	if n != 1 {
		t.Fatalf("%d matches before the break, want 1", n)
	}
	if cancelled.Load() != 1 || completed.Load() != 0 {
		t.Errorf("the big file's parse: %d cancelled, %d completed; want it cancelled mid-parse", cancelled.Load(), completed.Load())
	}
	if g := waitGoroutines(before); g > before {
		t.Errorf("%d goroutines after the stream, %d before", g, before)
	}
}
