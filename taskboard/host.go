package taskboard

import (
	"context"
	"fmt"
	"time"
)

// The host interfaces are the seams the [Driver] runs the machines against. Each is small
// so a fake is a few lines. StatusMap and IdleWaiter are optional: a v1 host offers the
// first, a v2 host may offer the second.

// Aborter aborts a session's current turn; confirmed=false: the host did not confirm it.
type Aborter interface {
	Abort(ctx context.Context, sessionID string) (confirmed bool, err error)
}

// Prompter writes to sessions. Enqueue appends m without starting a turn (v1 noReply; v2
// delivery "queue", resume false); PromptAsync queues m as a new turn (never noReply), nil
// meaning accepted.
type Prompter interface {
	Enqueue(ctx context.Context, sessionID string, m Message) error
	PromptAsync(ctx context.Context, sessionID string, m Message) error
}

// SessionReader reads a session and its transcript (oldest first).
type SessionReader interface {
	Session(ctx context.Context, sessionID string) (SessionInfo, error)
	Messages(ctx context.Context, sessionID string, limit int) ([]TranscriptEntry, error)
}

// StatusMap reads the v1 status of all sessions: busy, retry or idle (any other value is
// malformed; a missing session is absent).
type StatusMap interface {
	Statuses(ctx context.Context) (map[string]LiveStatus, error)
}

// IdleWaiter waits until a session is idle.
type IdleWaiter interface {
	WaitIdle(ctx context.Context, sessionID string) error
}

// Message is one write to a session. Only a v1 task_message carries the model identity
// (Provider, Model, Variant); Synthetic marks a parent notification.
type Message struct {
	Text, Agent, Provider, Model, Variant string
	Flavor                                Flavor
	Synthetic                             bool
}

// SessionInfo is what the host says about one session.
type SessionInfo struct {
	ParentID string
	IdleAt   time.Time // zero while the session has not been idle
	Outcome  string    // the host's free-form outcome, never trusted alone
}

// TranscriptEntry is one message of a session's transcript.
type TranscriptEntry struct {
	ID, Role, Agent, Provider, Model, Variant, Text, Error string
	Summary, Finished, Synthetic                           bool
	CreatedAt                                              time.Time
}

// Host bundles the host's implementations; all are required but Idle and, on v2, Status.
type Host struct {
	Aborter  Aborter
	Prompter Prompter
	Sessions SessionReader
	Status   StatusMap  // the v1 status map
	Idle     IdleWaiter // optional, v2
	Flavor   Flavor
}

// capsOf returns the capabilities the machines see for this host.
func (h Host) capsOf() caps {
	return caps{Flavor: h.Flavor, StatusMap: h.Status != nil, IdleWaiter: h.Idle != nil}
}

// liveOf classifies one session in a snapshot.
func liveOf(s map[string]LiveStatus, id string) LiveStatus {
	e, ok := s[id]
	if !ok {
		return LiveAbsent
	}
	switch e {
	case LiveBusy, LiveRetry, LiveIdle:
		return e
	}
	return LiveMalformed
}

// baselineOf returns the ID of a transcript's last entry, the point after which a resumed
// run's evidence is read. It refuses a transcript with an entry that has no ID: the board
// tells a resumed run's answer from the previous run's by that ID, so a host must give
// every entry a stable, non-empty ID.
func baselineOf(sessionID string, es []TranscriptEntry) (string, error) {
	for i, e := range es {
		if e.ID == "" {
			return "", fmt.Errorf("entry %d of %d in the transcript of %s has no ID: taskboard needs a stable, non-empty ID on every transcript entry to tell a resumed run's answer from the previous run's (fix the host's SessionReader.Messages)", i+1, len(es), sessionID)
		}
	}
	if len(es) == 0 {
		return "", nil
	}
	return es[len(es)-1].ID, nil
}
