package taskboard

import (
	"log/slog"
	"time"
)

// CallID names one host call emitted by a machine. IDs are unique within a machine and the
// machines it spawns or embeds (they share one allocator); the driver routes replies to the
// machine that emitted the call, so IDs of unrelated machines never meet.
type CallID uint64

// TimerID names one timer started by a machine, unique in the same way as [CallID].
type TimerID uint64

// A Command is what a machine asks its runner to do next: a host call, an answer to a
// [Dispatch], a timer, a log line or a new machine.
type Command interface{ command() }

// An Event is what a runner feeds back to a machine: a host reply, a timer firing, a
// [Dispatch] before a guarded call, or a board notice.
type Event interface{ event() }

// Machine is a sans-IO protocol. Start returns the first commands; Step consumes one
// event and returns the next commands. Replied reports that the caller-facing outcome is
// ready; Done reports that nothing is pending any more, after which Step returns nil for
// every event. A machine reads time only through [Board.Now] and performs no I/O.
type Machine interface {
	Start(b *Board) []Command
	Step(b *Board, ev Event) []Command
	Replied() bool
	Done() bool
}

// Caps tells a machine what the host offers: its flavour, whether it has a v1 status map,
// and whether it has a v2 idle waiter.
type Caps struct {
	Flavor     Flavor
	StatusMap  bool
	IdleWaiter bool
}

// Host-call commands. Abort, WriteMessage and SendPrompt are guarded: the runner
// delivers a Dispatch for their CallID immediately before performing them and performs them
// only when the machine answers Proceed.
type (
	// Abort asks the host to abort a session's current turn (guarded).
	Abort struct {
		Call      CallID
		SessionID string
	}
	// ReadStatus reads the v1 status map for all sessions.
	ReadStatus struct{ Call CallID }
	// ReadSession reads one session's host information.
	ReadSession struct {
		Call      CallID
		SessionID string
	}
	// ReadMessages reads the newest Limit transcript entries of a session, oldest first.
	ReadMessages struct {
		Call      CallID
		SessionID string
		Limit     int
	}
	// WaitIdle waits (v2) until the session is idle.
	WaitIdle struct {
		Call      CallID
		SessionID string
	}
	// WriteMessage appends a message to a session's transcript without starting a turn
	// (guarded).
	WriteMessage struct {
		Call      CallID
		SessionID string
		Message   Message
	}
	// SendPrompt queues a prompt for a session (guarded).
	SendPrompt struct {
		Call      CallID
		SessionID string
		Prompt    Prompt
	}
)

// Control commands.
type (
	// Proceed answers a Dispatch: perform the call now.
	Proceed struct{ Call CallID }
	// Withdraw answers a Dispatch: never perform the call.
	Withdraw struct{ Call CallID }
	// CancelCall cancels the context of a pending call; its reply, if any, is ignored.
	CancelCall struct{ Call CallID }
	// StartTimer asks for a Fired event After from now (as read by the board clock).
	StartTimer struct {
		Timer TimerID
		After time.Duration
	}
	// StopTimer cancels a timer; a Fired that arrives anyway is ignored.
	StopTimer struct{ Timer TimerID }
	// Log is a line for the host's logger.
	Log struct {
		Level slog.Level
		Msg   string
		Attrs []slog.Attr
	}
	// Spawn starts another machine that runs independently (compensation, notification).
	Spawn struct{ Machine Machine }
)

func (Abort) command()        {}
func (ReadStatus) command()   {}
func (ReadSession) command()  {}
func (ReadMessages) command() {}
func (WaitIdle) command()     {}
func (WriteMessage) command() {}
func (SendPrompt) command()   {}
func (Proceed) command()      {}
func (Withdraw) command()     {}
func (CancelCall) command()   {}
func (StartTimer) command()   {}
func (StopTimer) command()    {}
func (Log) command()          {}
func (Spawn) command()        {}

// Events.
type (
	// AbortReply settles an Abort.
	AbortReply struct {
		Call      CallID
		Confirmed bool
		Err       error
	}
	// StatusReply settles a ReadStatus.
	StatusReply struct {
		Call     CallID
		Snapshot StatusSnapshot
		Err      error
	}
	// SessionReply settles a ReadSession.
	SessionReply struct {
		Call CallID
		Info SessionInfo
		Err  error
	}
	// MessagesReply settles a ReadMessages.
	MessagesReply struct {
		Call    CallID
		Entries []TranscriptEntry
		Err     error
	}
	// IdleReply settles a WaitIdle; nil Err means the session became idle.
	IdleReply struct {
		Call CallID
		Err  error
	}
	// WriteReply settles a WriteMessage.
	WriteReply struct {
		Call CallID
		Err  error
	}
	// PromptReply settles a SendPrompt; nil Err means the host accepted the prompt.
	PromptReply struct {
		Call CallID
		Err  error
	}
	// Fired reports that a timer's duration has elapsed.
	Fired struct{ Timer TimerID }
	// Dispatch asks the machine, under the board lock, whether a guarded call may be
	// performed now. The machine answers with Proceed or Withdraw.
	Dispatch struct{ Call CallID }
	// NoticeEvent hands a board notice to a machine that waits for one (a parked
	// notification waits for the LeaseReleased notice of its task).
	NoticeEvent struct{ Notice Notice }
)

func (AbortReply) event()    {}
func (StatusReply) event()   {}
func (SessionReply) event()  {}
func (MessagesReply) event() {}
func (IdleReply) event()     {}
func (WriteReply) event()    {}
func (PromptReply) event()   {}
func (Fired) event()         {}
func (Dispatch) event()      {}
func (NoticeEvent) event()   {}

// callOf returns the CallID a reply or Dispatch event refers to.
func callOf(ev Event) (CallID, bool) {
	switch e := ev.(type) {
	case AbortReply:
		return e.Call, true
	case StatusReply:
		return e.Call, true
	case SessionReply:
		return e.Call, true
	case MessagesReply:
		return e.Call, true
	case IdleReply:
		return e.Call, true
	case WriteReply:
		return e.Call, true
	case PromptReply:
		return e.Call, true
	case Dispatch:
		return e.Call, true
	}
	return 0, false
}

// callOfCommand returns the CallID of a host-call command.
func callOfCommand(c Command) (CallID, bool) {
	switch c := c.(type) {
	case Abort:
		return c.Call, true
	case ReadStatus:
		return c.Call, true
	case ReadSession:
		return c.Call, true
	case ReadMessages:
		return c.Call, true
	case WaitIdle:
		return c.Call, true
	case WriteMessage:
		return c.Call, true
	case SendPrompt:
		return c.Call, true
	}
	return 0, false
}

// guarded reports whether a host-call command needs a Dispatch before it is performed.
func guarded(c Command) bool {
	switch c.(type) {
	case Abort, WriteMessage, SendPrompt:
		return true
	}
	return false
}
