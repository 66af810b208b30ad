package taskboard

import "time"

// Clock is the only source of time for a [Board]. The board never reads the wall clock;
// the driver passes a real clock, tests pass a [ManualClock].
type Clock interface{ Now() time.Time }

// ManualClock is a [Clock] that moves only when told to. It is meant for tests, simulations
// and the demo. It is not safe for concurrent use; guard it with the driver's lock or use it
// from one goroutine.
type ManualClock struct{ t time.Time }

// NewManualClock returns a clock that reads start until it is advanced.
func NewManualClock(start time.Time) *ManualClock { return &ManualClock{t: start} }

// Now returns the clock's current reading.
func (c *ManualClock) Now() time.Time { return c.t }

// Advance moves the clock forward by d (a negative d is ignored: clocks never go back).
func (c *ManualClock) Advance(d time.Duration) {
	if d > 0 {
		c.t = c.t.Add(d)
	}
}

// Set moves the clock to t if t is not before the current reading.
func (c *ManualClock) Set(t time.Time) {
	if t.After(c.t) {
		c.t = t
	}
}

var _ Clock = (*ManualClock)(nil)
