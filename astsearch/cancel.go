package astsearch

import (
	"context"
	"slices"
	"sync"
)

// cancelParser is a treeParser whose parse in progress can be stopped from another
// goroutine (the cgo parser: tree-sitter's cancellation flag).
type cancelParser interface {
	Cancel()
}

// parseCanceller stops the parsers of one search when its context ends: one
// context.AfterFunc per search (no goroutine until the context ends), which cancels every
// parser registered at that moment and any registered later. A parser is removed before it
// is closed, so the callback never touches a closed parser.
type parseCanceller struct {
	mu      sync.Mutex
	ended   bool
	parsers []cancelParser
	stop    func() bool
	fired   chan struct{} // closed when the callback has finished
}

func newParseCanceller(ctx context.Context) *parseCanceller {
	pc := &parseCanceller{fired: make(chan struct{})}
	pc.stop = context.AfterFunc(ctx, pc.cancelAll)
	return pc
}

func (pc *parseCanceller) cancelAll() {
	defer close(pc.fired)
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.ended = true
	for _, p := range pc.parsers {
		p.Cancel()
	}
}

// add registers a parser (cancelled at once if the context has ended).
func (pc *parseCanceller) add(tp treeParser) {
	p, ok := tp.(cancelParser)
	if !ok {
		return
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.ended {
		p.Cancel()
		return
	}
	pc.parsers = append(pc.parsers, p)
}

// remove unregisters a parser; after it returns the callback no longer touches it.
func (pc *parseCanceller) remove(tp treeParser) {
	p, ok := tp.(cancelParser)
	if !ok {
		return
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.parsers = slices.DeleteFunc(pc.parsers, func(q cancelParser) bool { return q == p })
}

// close detaches the callback, waiting for it when it has already started, so that no
// goroutine of the search outlives it.
func (pc *parseCanceller) close() {
	if !pc.stop() {
		<-pc.fired
	}
}
