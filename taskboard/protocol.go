package taskboard

import (
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
// [dispatch] before a guarded call, or a board notice.
type event interface{ event() }

// machine is a sans-IO protocol. Start returns the first commands; Step consumes one
// event and returns the next commands. Replied reports that the caller-facing outcome is
// ready; Done reports that nothing is pending any more, after which Step returns nil for
// every event. A machine reads time only through [Board.Now] and performs no I/O.
type machine interface {
	Start(b *Board) []command
	Step(b *Board, ev event) []command
	Replied() bool
	Done() bool
}

// caps tells a machine what the host offers: its flavour, whether it has a v1 status map,
// and whether it has a v2 idle waiter.
type caps struct {
	Flavor     string
	StatusMap  bool
	IdleWaiter bool
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
		Prompt    Prompt
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
		Snapshot map[string]StatusEntry
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

func (abortReply) event()    {}
func (statusReply) event()   {}
func (sessionReply) event()  {}
func (messagesReply) event() {}
func (idleReply) event()     {}
func (writeReply) event()    {}
func (promptReply) event()   {}
func (fired) event()         {}
func (dispatch) event()      {}
func (noticeEvent) event()   {}

// callOf returns the CallID a reply or Dispatch event refers to.
func callOf(ev event) (callNo, bool) {
	switch e := ev.(type) {
	case abortReply:
		return e.Call, true
	case statusReply:
		return e.Call, true
	case sessionReply:
		return e.Call, true
	case messagesReply:
		return e.Call, true
	case idleReply:
		return e.Call, true
	case writeReply:
		return e.Call, true
	case promptReply:
		return e.Call, true
	case dispatch:
		return e.Call, true
	}
	return 0, false
}

// callOfCommand returns the CallID of a host-call command.
func callOfCommand(c command) (callNo, bool) {
	switch c := c.(type) {
	case abort:
		return c.Call, true
	case readStatus:
		return c.Call, true
	case readSession:
		return c.Call, true
	case readMessages:
		return c.Call, true
	case waitIdle:
		return c.Call, true
	case writeMessage:
		return c.Call, true
	case sendPrompt:
		return c.Call, true
	}
	return 0, false
}

// guarded reports whether a host-call command needs a Dispatch before it is performed.
func guarded(c command) bool {
	switch c.(type) {
	case abort, writeMessage, sendPrompt:
		return true
	}
	return false
}
