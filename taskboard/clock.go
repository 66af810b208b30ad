package taskboard

import "time"

// Clock is the only source of time for a [Board]. The board never reads the wall clock;
// the driver passes a real clock, tests pass a clock that moves only when told to (taskboardtest.NewClock).
type Clock interface{ Now() time.Time }

// systemClock is the default [Clock]: time.Now.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }
