package astsearch

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
)

// TestThreads: the worker count a request asks for is bounded by MaxThreadsPerCPU per
// GOMAXPROCS; zero or a negative count means the default.
func TestThreads(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	limit := MaxThreadsPerCPU * procs
	for _, c := range []struct {
		name    string
		threads int
		want    int
	}{
		{"zero_default", 0, min(procs, MaxThreads)},
		{"negative_default", -3, min(procs, MaxThreads)},
		{"one", 1, 1},
		{"at_limit", limit, limit},
		{"above_limit", limit + 1, limit},
		{"million", 1_000_000, limit},
		{"max_int", int(^uint(0) >> 1), limit},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Request{Threads: c.threads}
			if got := r.threads(); got != c.want {
				t.Errorf("Threads %d: %d workers, want %d", c.threads, got, c.want)
			}
		})
	}
}

// TestThreadsMillionStartsFewWorkers: Threads 1e6 over 300 files starts at most the bounded
// number of workers (each worker makes its own parser: the parsers are counted) and finds
// every match.
func TestThreadsMillionStartsFewWorkers(t *testing.T) {
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("f%03d.js", i)] = srcThree
	}
	var parsers atomic.Int32
	b := &nativeBackend{factory: func(l Lang) (treeParser, error) {
		parsers.Add(1)
		return fixtureFactory(l)
	}}
	r, err := Search(context.Background(), mapFS(files), Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: b, Threads: 1_000_000, MaxMatches: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	if r.TotalMatches != 900 || r.Stats.Searched != 300 {
		t.Errorf("%d matches in %d files, want 900 in 300", r.TotalMatches, r.Stats.Searched)
	}
	// Two parsers check the language and compile the pattern; each worker makes one.
	if got, limit := int(parsers.Load())-2, MaxThreadsPerCPU*runtime.GOMAXPROCS(0); got > limit {
		t.Errorf("%d workers made parsers, want at most %d", got, limit)
	}
}
