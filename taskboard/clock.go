package taskboard

import "time"

// Clock is the board's only source of time (taskboardtest.NewClock is a manual one).
type Clock interface{ Now() time.Time }

// systemClock is the default [Clock]: time.Now.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }
