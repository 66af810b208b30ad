package loopguard

import "sync"

// Guard is [Core] behind one mutex: the type a host shares between goroutines. Hashing and
// parsing happen before the lock is taken; the lock covers only the state update, so a
// large output never holds up other sessions while it is hashed.
//
// Parallel calls are counted when they complete: a call admitted by Before is always
// allowed to complete, even if the streak reaches BlockAt meanwhile, and overlapping
// identical calls can never count more than the identical results that actually came back.
//
// Create one with [New]; the zero value is not usable.
type Guard struct {
	mu   sync.Mutex
	core *Core
	pool sync.Pool // of *scratch: fingerprinting buffers, used outside the lock
}

// New returns a Guard configured by opts, or an error wrapping [ErrInvalidOption].
func New(opts ...Option) (*Guard, error) {
	core, err := NewCore(opts...)
	if err != nil {
		return nil, err
	}
	return &Guard{core: core, pool: sync.Pool{New: func() any { return new(scratch) }}}, nil
}

// describe is config.describe with a scratch from the pool.
func (g *Guard) describe(c Call, withKey bool) callInfo {
	sc := g.pool.Get().(*scratch)
	ci := g.core.cfg.describe(c, sc, withKey)
	sc.trim()
	g.pool.Put(sc)
	return ci
}

// Before is [Core.Before], safe for concurrent use.
func (g *Guard) Before(c Call) error {
	ci := g.describe(c, true)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.core.before(ci, true)
}

// Preview is [Core.Preview], safe for concurrent use.
func (g *Guard) Preview(c Call) error {
	ci := g.describe(c, true)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.core.before(ci, false)
}

// After is [Core.After], safe for concurrent use.
func (g *Guard) After(c Call, out Output) Verdict {
	sc := g.pool.Get().(*scratch)
	ci := g.core.cfg.describe(c, sc, false)
	prep := prepareAfter(ci, out, sc)
	sc.trim()
	g.pool.Put(sc)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.core.after(ci, out, prep)
}

// AfterText is [Core.AfterText], safe for concurrent use.
func (g *Guard) AfterText(c Call, text string) string {
	return g.After(c, TextOutput(text)).Output.Text
}

// Abandon is [Core.Abandon], safe for concurrent use.
func (g *Guard) Abandon(session, callID string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.core.Abandon(session, callID)
}

// UserMessage is [Core.UserMessage], safe for concurrent use.
func (g *Guard) UserMessage(session, messageID string, external bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.core.UserMessage(session, messageID, external)
}

// EndTurn is [Core.EndTurn], safe for concurrent use.
func (g *Guard) EndTurn(session string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.core.EndTurn(session)
}

// EndSession is [Core.EndSession], safe for concurrent use.
func (g *Guard) EndSession(session string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.core.EndSession(session)
}

// State is [Core.State], safe for concurrent use.
func (g *Guard) State(session string) (SessionState, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.core.State(session)
}

// Len is [Core.Len], safe for concurrent use.
func (g *Guard) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.core.Len()
}
