package taskboard

import "time"

// manualClock is a [Clock] that moves only when told to. It is meant for tests, simulations
// and the demo. It is not safe for concurrent use; guard it with the driver's lock or use it
// from one goroutine.
type manualClock struct{ t time.Time }

// newManualClock returns a clock that reads start until it is advanced.
func newManualClock(start time.Time) *manualClock { return &manualClock{t: start} }

// Now returns the clock's current reading.
func (c *manualClock) Now() time.Time { return c.t }

// Advance moves the clock forward by d (a negative d is ignored: clocks never go back).
func (c *manualClock) Advance(d time.Duration) {
	if d > 0 {
		c.t = c.t.Add(d)
	}
}

// Set moves the clock to t if t is not before the current reading.
func (c *manualClock) Set(t time.Time) {
	if t.After(c.t) {
		c.t = t
	}
}
