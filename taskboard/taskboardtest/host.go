// Package taskboardtest is an in-memory fake host for [taskboard.Driver]: sessions with
// transcripts, busy/idle state, aborts, queued prompts and messages, and injected failures
// and delays. Host authors use it to test their wiring without a real agent runtime; the
// taskboard package's own examples use it too.
//
// The life of a task with the fake, as the driver sees it:
//
//	Driver.Task → Host.Start(id, parent, prompt) → Driver.FinishTask
//	  → Host.Finish(id, text) (returns the idle event) → Driver.Observe → completed
//
// Every method is safe for concurrent use. Injected delays honour the call's context, so a
// call that outlives Timing.HostCallDeadline or a protocol deadline returns the context's
// error, as a well-behaved host does.
package taskboardtest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/harnesskit/harnesskit/taskboard"
)

// ErrUnknownSession is returned for a session the fake host does not have.
var ErrUnknownSession = errors.New("taskboardtest: unknown session")

// Operation names a host call, for [Host.FailNext], [Host.Delay] and [Host.Calls].
type Operation string

// The host calls the driver makes.
const (
	OpAbort    Operation = "abort"
	OpEnqueue  Operation = "enqueue"
	OpPrompt   Operation = "prompt"
	OpStatuses Operation = "statuses"
	OpSession  Operation = "session"
	OpMessages Operation = "messages"
	OpWaitIdle Operation = "wait_idle"
)

// Host is the fake host. The zero value is not usable; call [New].
type Host struct {
	flavor taskboard.Flavor
	clock  taskboard.Clock

	mu       sync.Mutex
	sessions map[string]*session
	fail     map[Operation][]error
	delay    map[Operation]time.Duration
	calls    []string
	changed  chan struct{} // closed and replaced on every state change (WaitIdle)
	nextID   int
}

type session struct {
	parent     string
	busy       bool
	idleAt     time.Time
	transcript []taskboard.TranscriptEntry
	aborts     int
	prompts    []taskboard.Message
	messages   []taskboard.Message
}

// New returns an empty fake host of the given flavour: FlavorV1 offers the status map,
// FlavorV2 the idle waiter. clock stamps idle times and transcript entries; nil means
// the wall clock.
func New(flavor taskboard.Flavor, clock taskboard.Clock) *Host {
	if clock == nil {
		clock = wallClock{}
	}
	return &Host{flavor: flavor, clock: clock, sessions: map[string]*session{},
		fail: map[Operation][]error{}, delay: map[Operation]time.Duration{}, changed: make(chan struct{})}
}

// Host returns the bundle to give [taskboard.NewDriver].
func (h *Host) Host() taskboard.Host {
	th := taskboard.Host{Aborter: h, Prompter: h, Sessions: h, Flavor: h.flavor}
	if h.flavor == taskboard.FlavorV1 {
		th.Status = hostStatus{h}
	} else {
		th.Idle = hostIdle{h}
	}
	return th
}

// hostStatus and hostIdle expose the optional capabilities only for their flavour.
type hostStatus struct{ h *Host }
type hostIdle struct{ h *Host }

func (s hostStatus) Statuses(ctx context.Context) (map[string]taskboard.LiveStatus, error) {
	return s.h.Statuses(ctx)
}
func (i hostIdle) WaitIdle(ctx context.Context, id string) error { return i.h.WaitIdle(ctx, id) }

// Start creates a running (busy) session sessionID whose parent is parentID, with prompt
// as its first user entry, as the host does when task() launches a background task.
// Starting an existing session appends the prompt and makes it busy again.
func (h *Host) Start(sessionID, parentID, prompt string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[sessionID]
	if s == nil {
		s = &session{parent: parentID}
		h.sessions[sessionID] = s
	}
	h.appendEntry(s, taskboard.TranscriptEntry{Role: "user", Text: prompt})
	s.busy, s.idleAt = true, time.Time{}
	h.signal()
}

// Finish ends the session's current turn with a finished assistant entry holding text and
// makes it idle. It returns the idle event to give [taskboard.Driver.Observe]: with it, the
// driver reads the transcript and completes the task with text.
func (h *Host) Finish(sessionID, text string) taskboard.HostEvent {
	return h.end(sessionID, taskboard.TranscriptEntry{Role: "assistant", Text: text, Finished: true})
}

// Fail ends the session's current turn with an error entry and makes it idle; the returned
// idle event makes the driver record the task as failed with msg.
func (h *Host) Fail(sessionID, msg string) taskboard.HostEvent {
	return h.end(sessionID, taskboard.TranscriptEntry{Role: "assistant", Error: msg, Finished: true})
}

func (h *Host) end(sessionID string, e taskboard.TranscriptEntry) taskboard.HostEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.session(sessionID)
	h.appendEntry(s, e)
	s.busy, s.idleAt = false, h.clock.Now()
	h.signal()
	return taskboard.HostEvent{Kind: taskboard.EventIdle, SessionID: sessionID}
}

// SetBusy marks the session busy (true) or idle (false) without touching its transcript.
func (h *Host) SetBusy(sessionID string, busy bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.session(sessionID)
	s.busy = busy
	if !busy {
		s.idleAt = h.clock.Now()
	}
	h.signal()
}

// Delete forgets the session and returns the deletion event for [taskboard.Driver.Observe].
func (h *Host) Delete(sessionID string) taskboard.HostEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.sessions, sessionID)
	h.signal()
	return taskboard.HostEvent{Kind: taskboard.EventDeleted, SessionID: sessionID}
}

// FailNext makes the next call of op fail with err (calls queue up: FailNext twice fails
// the next two calls).
func (h *Host) FailNext(op Operation, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fail[op] = append(h.fail[op], err)
}

// Delay makes every later call of op wait d (0 removes the delay) before answering, or
// return the context's error if the context ends first.
func (h *Host) Delay(op Operation, d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.delay[op] = d
}

// Calls returns the host calls made so far, oldest first, as "<operation> <session>".
func (h *Host) Calls() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.calls...)
}

// Transcript returns a copy of the session's transcript.
func (h *Host) Transcript(sessionID string) []taskboard.TranscriptEntry {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.sessions[sessionID]; s != nil {
		return append([]taskboard.TranscriptEntry(nil), s.transcript...)
	}
	return nil
}

// Prompts returns the prompts queued to the session (revives and parent notifications).
func (h *Host) Prompts(sessionID string) []taskboard.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.sessions[sessionID]; s != nil {
		return append([]taskboard.Message(nil), s.prompts...)
	}
	return nil
}

// Aborts returns how many aborts the session received.
func (h *Host) Aborts(sessionID string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.sessions[sessionID]; s != nil {
		return s.aborts
	}
	return 0
}

// Busy reports whether the session is running a turn.
func (h *Host) Busy(sessionID string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[sessionID]
	return s != nil && s.busy
}

// session returns the named session, creating an idle one (lock held).
func (h *Host) session(id string) *session {
	s := h.sessions[id]
	if s == nil {
		s = &session{}
		h.sessions[id] = s
	}
	return s
}

func (h *Host) appendEntry(s *session, e taskboard.TranscriptEntry) {
	h.nextID++
	e.ID = "msg_" + strconv.Itoa(h.nextID)
	e.CreatedAt = h.clock.Now()
	if e.Model == "" {
		e.Provider, e.Model = "fake", "fake-model" // the model identity a v1 message reuses
	}
	s.transcript = append(s.transcript, e)
}

func (h *Host) signal() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// begin records a call, applies its injected delay and failure, and returns the error to
// answer with (nil to go on).
func (h *Host) begin(ctx context.Context, op Operation, sessionID string) error {
	h.mu.Lock()
	h.calls = append(h.calls, string(op)+" "+sessionID)
	d := h.delay[op]
	var err error
	if q := h.fail[op]; len(q) > 0 {
		err, h.fail[op] = q[0], q[1:]
	}
	h.mu.Unlock()
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return err
}

// Abort ends the session's turn: it becomes idle and the abort is confirmed.
func (h *Host) Abort(ctx context.Context, sessionID string) (bool, error) {
	if err := h.begin(ctx, OpAbort, sessionID); err != nil {
		return false, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[sessionID]
	if s == nil {
		return false, fmt.Errorf("%w: %s", ErrUnknownSession, sessionID)
	}
	s.aborts++
	s.busy, s.idleAt = false, h.clock.Now()
	h.signal()
	return true, nil
}

// Enqueue appends m to the transcript as a user entry without starting a turn.
func (h *Host) Enqueue(ctx context.Context, sessionID string, m taskboard.Message) error {
	if err := h.begin(ctx, OpEnqueue, sessionID); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[sessionID]
	if s == nil {
		return fmt.Errorf("%w: %s", ErrUnknownSession, sessionID)
	}
	s.messages = append(s.messages, m)
	h.appendEntry(s, taskboard.TranscriptEntry{Role: "user", Text: m.Text})
	return nil
}

// PromptAsync queues p as a new turn: a user entry is appended and the session is busy.
func (h *Host) PromptAsync(ctx context.Context, sessionID string, p taskboard.Message) error {
	if err := h.begin(ctx, OpPrompt, sessionID); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.session(sessionID) // a parent session may not have been started explicitly
	s.prompts = append(s.prompts, p)
	h.appendEntry(s, taskboard.TranscriptEntry{Role: "user", Text: p.Text, Synthetic: p.Synthetic})
	s.busy, s.idleAt = true, time.Time{}
	h.signal()
	return nil
}

// Statuses returns the status map (a v1 capability): busy or idle for every session.
func (h *Host) Statuses(ctx context.Context) (map[string]taskboard.LiveStatus, error) {
	if err := h.begin(ctx, OpStatuses, ""); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	snap := map[string]taskboard.LiveStatus{}
	ids := make([]string, 0, len(h.sessions))
	for id := range h.sessions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		st := taskboard.LiveIdle
		if h.sessions[id].busy {
			st = taskboard.LiveBusy
		}
		snap[id] = st
	}
	return snap, nil
}

// Session returns the session's parent and, when idle, since when.
func (h *Host) Session(ctx context.Context, sessionID string) (taskboard.SessionInfo, error) {
	if err := h.begin(ctx, OpSession, sessionID); err != nil {
		return taskboard.SessionInfo{}, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[sessionID]
	if s == nil {
		return taskboard.SessionInfo{}, fmt.Errorf("%w: %s", ErrUnknownSession, sessionID)
	}
	return taskboard.SessionInfo{ParentID: s.parent, IdleAt: s.idleAt}, nil
}

// Messages returns the last limit transcript entries (all when limit ≤ 0), oldest first.
func (h *Host) Messages(ctx context.Context, sessionID string, limit int) ([]taskboard.TranscriptEntry, error) {
	if err := h.begin(ctx, OpMessages, sessionID); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[sessionID]
	if s == nil {
		return nil, fmt.Errorf("%w: %s", ErrUnknownSession, sessionID)
	}
	es := s.transcript
	if limit > 0 && len(es) > limit {
		es = es[len(es)-limit:]
	}
	return append([]taskboard.TranscriptEntry(nil), es...), nil
}

// WaitIdle returns when the session is idle, or the context's error.
func (h *Host) WaitIdle(ctx context.Context, sessionID string) error {
	if err := h.begin(ctx, OpWaitIdle, sessionID); err != nil {
		return err
	}
	for {
		h.mu.Lock()
		s := h.sessions[sessionID]
		if s == nil {
			h.mu.Unlock()
			return fmt.Errorf("%w: %s", ErrUnknownSession, sessionID)
		}
		if !s.busy {
			h.mu.Unlock()
			return nil
		}
		ch := h.changed
		h.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Clock is a [taskboard.Clock] that moves only when told to, for tests and simulations. It
// is safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock that reads start until it is advanced.
func NewClock(start time.Time) *Clock { return &Clock{t: start} }

// Now returns the clock's reading.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d (a negative d is ignored: clocks never go back).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.t = c.t.Add(d)
	}
}

var _ taskboard.Clock = (*Clock)(nil)

// wallClock is the clock of a host built without one: time.Now.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }
