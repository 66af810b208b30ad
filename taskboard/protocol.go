package taskboard

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// callNo names one host call emitted by a machine. IDs are unique within a machine and the
// machines it spawns or embeds (they share one allocator); the driver routes replies to the
// machine that emitted the call, so IDs of unrelated machines never meet.
type callNo uint64

// timerID names one timer started by a machine, unique in the same way as [callNo].
type timerID uint64

// A command is what a machine asks its runner to do next: a host call, an answer to a
// [dispatch], a timer, a log line or a new machine.
type command interface{ command() }

// An event is what a runner feeds back to a machine: a host reply, a timer firing, a
// [dispatch] before a guarded call, or a board notice. call names the host call a reply
// or dispatch is about (false for the others).
type event interface{ call() (callNo, bool) }

// machine is a sans-IO protocol. Start returns the first commands; Step consumes one
// event and returns the next commands. Replied reports that the caller-facing outcome is
// ready; Done reports that nothing is pending any more, after which Step returns nil for
// every event. A machine reads time only through [Board.now] and performs no I/O.
type machine interface {
	Start(b *Board) []command
	Step(b *Board, ev event) []command
	Replied() bool
	Done() bool
	clone() machine
}

// caps tells a machine what the host offers: its flavour, whether it has a v1 status map,
// and whether it has a v2 idle waiter.
type caps struct {
	Flavor     Flavor
	StatusMap  bool
	IdleWaiter bool
	shared     bool // the board is shared: a parked notification polls
}

// Host-call commands. Abort, WriteMessage and SendPrompt are guarded: the runner
// delivers a Dispatch for their CallID immediately before performing them and performs them
// only when the machine answers Proceed.
type (
	// abort asks the host to abort a session's current turn (guarded).
	abort struct {
		Call      callNo
		SessionID string
	}
	// readStatus reads the v1 status map for all sessions.
	readStatus struct{ Call callNo }
	// readSession reads one session's host information.
	readSession struct {
		Call      callNo
		SessionID string
	}
	// readMessages reads the newest Limit transcript entries of a session, oldest first.
	readMessages struct {
		Call      callNo
		SessionID string
		Limit     int
	}
	// waitIdle waits (v2) until the session is idle.
	waitIdle struct {
		Call      callNo
		SessionID string
	}
	// writeMessage appends a message to a session's transcript without starting a turn
	// (guarded).
	writeMessage struct {
		Call      callNo
		SessionID string
		Message   Message
	}
	// sendPrompt queues a prompt for a session (guarded).
	sendPrompt struct {
		Call      callNo
		SessionID string
		Prompt    Message
	}
)

// Control commands.
type (
	// proceed answers a Dispatch: perform the call now.
	proceed struct{ Call callNo }
	// withdraw answers a Dispatch: never perform the call.
	withdraw struct{ Call callNo }
	// cancelCall cancels the context of a pending call; its reply, if any, is ignored.
	cancelCall struct{ Call callNo }
	// startTimer asks for a Fired event After from now (as read by the board clock).
	startTimer struct {
		Timer timerID
		After time.Duration
	}
	// stopTimer cancels a timer; a Fired that arrives anyway is ignored.
	stopTimer struct{ Timer timerID }
	// logLine is a line for the host's logger.
	logLine struct {
		Level slog.Level
		Msg   string
		Attrs []slog.Attr
	}
	// spawn starts another machine that runs independently (compensation, notification).
	spawn struct{ Machine machine }
)

func (abort) command()        {}
func (readStatus) command()   {}
func (readSession) command()  {}
func (readMessages) command() {}
func (waitIdle) command()     {}
func (writeMessage) command() {}
func (sendPrompt) command()   {}
func (proceed) command()      {}
func (withdraw) command()     {}
func (cancelCall) command()   {}
func (startTimer) command()   {}
func (stopTimer) command()    {}
func (logLine) command()      {}
func (spawn) command()        {}

// Events.
type (
	// abortReply settles an Abort.
	abortReply struct {
		Call      callNo
		Confirmed bool
		Err       error
	}
	// statusReply settles a ReadStatus.
	statusReply struct {
		Call     callNo
		Snapshot map[string]LiveStatus
		Err      error
	}
	// sessionReply settles a ReadSession.
	sessionReply struct {
		Call callNo
		Info SessionInfo
		Err  error
	}
	// messagesReply settles a ReadMessages.
	messagesReply struct {
		Call    callNo
		Entries []TranscriptEntry
		Err     error
	}
	// idleReply settles a WaitIdle; nil Err means the session became idle.
	idleReply struct {
		Call callNo
		Err  error
	}
	// writeReply settles a WriteMessage.
	writeReply struct {
		Call callNo
		Err  error
	}
	// promptReply settles a SendPrompt; nil Err means the host accepted the prompt.
	promptReply struct {
		Call callNo
		Err  error
	}
	// fired reports that a timer's duration has elapsed.
	fired struct{ Timer timerID }
	// dispatch asks the machine, under the board lock, whether a guarded call may be
	// performed now. The machine answers with Proceed or Withdraw.
	dispatch struct{ Call callNo }
	// noticeEvent hands a board notice to a machine that waits for one (a parked
	// notification waits for the LeaseReleased notice of its task).
	noticeEvent struct{ Notice Notice }
)

func (fired) call() (callNo, bool)       { return 0, false }
func (noticeEvent) call() (callNo, bool) { return 0, false }

// hostCall is a command the driver performs against the host, each in its own goroutine.
// Guarded calls (abort, writeMessage, sendPrompt) are performed only after the machine
// answered proceed to their dispatch.
type hostCall interface {
	command
	callID() callNo
	guarded() bool
	perform(ctx context.Context, h Host) event
}

var (
	_ hostCall = abort{}
	_ hostCall = readStatus{}
	_ hostCall = readSession{}
	_ hostCall = readMessages{}
	_ hostCall = waitIdle{}
	_ hostCall = writeMessage{}
	_ hostCall = sendPrompt{}
)

func (c abort) callID() callNo        { return c.Call }
func (c readStatus) callID() callNo   { return c.Call }
func (c readSession) callID() callNo  { return c.Call }
func (c readMessages) callID() callNo { return c.Call }
func (c waitIdle) callID() callNo     { return c.Call }
func (c writeMessage) callID() callNo { return c.Call }
func (c sendPrompt) callID() callNo   { return c.Call }

func (abort) guarded() bool        { return true }
func (readStatus) guarded() bool   { return false }
func (readSession) guarded() bool  { return false }
func (readMessages) guarded() bool { return false }
func (waitIdle) guarded() bool     { return false }
func (writeMessage) guarded() bool { return true }
func (sendPrompt) guarded() bool   { return true }

func (c abort) perform(ctx context.Context, h Host) event {
	ok, err := h.Aborter.Abort(ctx, c.SessionID)
	return abortReply{Call: c.Call, Confirmed: ok, Err: err}
}

func (c readStatus) perform(ctx context.Context, h Host) event {
	if h.Status == nil {
		return statusReply{Call: c.Call, Err: errors.New("live status unavailable")}
	}
	s, err := h.Status.Statuses(ctx)
	return statusReply{Call: c.Call, Snapshot: s, Err: err}
}

func (c readSession) perform(ctx context.Context, h Host) event {
	info, err := h.Sessions.Session(ctx, c.SessionID)
	return sessionReply{Call: c.Call, Info: info, Err: err}
}

func (c readMessages) perform(ctx context.Context, h Host) event {
	es, err := h.Sessions.Messages(ctx, c.SessionID, c.Limit)
	return messagesReply{Call: c.Call, Entries: es, Err: err}
}

func (c waitIdle) perform(ctx context.Context, h Host) event {
	if h.Idle == nil {
		return idleReply{Call: c.Call, Err: errors.New("idle waiter unavailable")}
	}
	return idleReply{Call: c.Call, Err: h.Idle.WaitIdle(ctx, c.SessionID)}
}

func (c writeMessage) perform(ctx context.Context, h Host) event {
	return writeReply{Call: c.Call, Err: h.Prompter.Enqueue(ctx, c.SessionID, c.Message)}
}

func (c sendPrompt) perform(ctx context.Context, h Host) event {
	return promptReply{Call: c.Call, Err: h.Prompter.PromptAsync(ctx, c.SessionID, c.Prompt)}
}

func (e abortReply) call() (callNo, bool)    { return e.Call, true }
func (e statusReply) call() (callNo, bool)   { return e.Call, true }
func (e sessionReply) call() (callNo, bool)  { return e.Call, true }
func (e messagesReply) call() (callNo, bool) { return e.Call, true }
func (e idleReply) call() (callNo, bool)     { return e.Call, true }
func (e writeReply) call() (callNo, bool)    { return e.Call, true }
func (e promptReply) call() (callNo, bool)   { return e.Call, true }
func (e dispatch) call() (callNo, bool)      { return e.Call, true }
