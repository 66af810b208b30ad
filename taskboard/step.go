package taskboard

import (
	"fmt"
	"log/slog"
	"time"
)

// ids allocates CallIDs and TimerIDs; a machine shares its allocator with the machines it
// embeds so that their IDs never collide.
type ids struct {
	call  CallID
	timer TimerID
}

func (i *ids) nextCall() CallID   { i.call++; return i.call }
func (i *ids) nextTimer() TimerID { i.timer++; return i.timer }

// core is the bookkeeping every machine shares: pending calls, armed timers with their due
// times, guards between a call and its deadline timer, and the replied/done flags.
//
// The tick rule lives here: when a reply arrives for a call whose deadline timer is
// due (now ≥ due) but has not fired yet, the timer is processed first, so the reply counts
// as late whichever of the two the runner delivers first.
type core struct {
	ids      *ids
	pending  map[CallID]bool       // emitted host calls not settled (and not cancelled)
	awaiting map[CallID]bool       // guarded calls waiting for their Dispatch
	timers   map[TimerID]time.Time // armed timers and their due times
	guard    map[CallID]TimerID    // deadline timer guarding a call
	replied  bool
	done     bool
	hold     bool // the machine waits for a notice (parked), not a reply or timer
	logs     []Log
}

func newCore(i *ids) core {
	if i == nil {
		i = &ids{}
	}
	return core{
		ids:      i,
		pending:  map[CallID]bool{},
		awaiting: map[CallID]bool{},
		timers:   map[TimerID]time.Time{},
		guard:    map[CallID]TimerID{},
	}
}

// Replied reports whether the caller-facing outcome is ready.
func (c *core) Replied() bool { return c.replied }

// Done reports whether the machine has replied and has nothing pending: no host call, no
// guarded call awaiting its Dispatch, no armed timer, and no wait for a notice.
func (c *core) Done() bool {
	if !c.done && c.replied && !c.hold && len(c.pending) == 0 && len(c.awaiting) == 0 && len(c.timers) == 0 {
		c.done = true
	}
	return c.done
}

// call registers a new host call; guarded calls wait for their Dispatch.
func (c *core) call(guardedCall bool) CallID {
	id := c.ids.nextCall()
	if guardedCall {
		c.awaiting[id] = true
	} else {
		c.pending[id] = true
	}
	return id
}

// timer arms a timer due d from now.
func (c *core) timer(b *Board, d time.Duration) (TimerID, Command) {
	d = Budget(d)
	id := c.ids.nextTimer()
	c.timers[id] = b.Now().Add(d)
	return id, StartTimer{Timer: id, After: d}
}

// deadlineRead registers a host read that is not guarded (it needs no Dispatch) and arms
// its deadline timer of d; a reply after the timer fired is ignored (see step).
func (c *core) deadlineRead(b *Board, d time.Duration) (CallID, TimerID, Command) {
	id := c.call(false)
	t, st := c.timer(b, d)
	c.guard[id] = t
	return id, t, st
}

// stop disarms a timer; it returns nil when the timer is not armed.
func (c *core) stop(t TimerID) []Command {
	if _, ok := c.timers[t]; !ok {
		return nil
	}
	delete(c.timers, t)
	return []Command{StopTimer{Timer: t}}
}

// cancel drops a pending call; its reply will be ignored.
func (c *core) cancel(id CallID) []Command {
	if !c.pending[id] {
		return nil
	}
	delete(c.pending, id)
	delete(c.guard, id)
	return []Command{CancelCall{Call: id}}
}

// withdraw answers a Dispatch negatively.
func (c *core) withdraw(id CallID) []Command {
	delete(c.awaiting, id)
	if t, ok := c.guard[id]; ok {
		delete(c.guard, id)
		return append([]Command{Withdraw{Call: id}}, c.stop(t)...)
	}
	return []Command{Withdraw{Call: id}}
}

// proceed answers a Dispatch positively; the call becomes pending.
func (c *core) proceed(id CallID) []Command {
	delete(c.awaiting, id)
	c.pending[id] = true
	return []Command{Proceed{Call: id}}
}

func (c *core) log(level slog.Level, msg string, attrs ...slog.Attr) Command {
	l := Log{Level: level, Msg: msg, Attrs: attrs}
	c.logs = append(c.logs, l)
	return l
}

// step runs the common part of every machine's Step: it drops events that are unknown,
// duplicated or arrive after Done, applies the tick rule, and hands the rest to fire
// (timers) and handle (replies, dispatches and notices).
func (c *core) step(b *Board, ev Event, fire func(TimerID) []Command, handle func(Event) []Command) []Command {
	if c.Done() {
		return nil
	}
	var out []Command
	switch e := ev.(type) {
	case Fired:
		if _, ok := c.timers[e.Timer]; !ok {
			return nil
		}
		delete(c.timers, e.Timer)
		out = fire(e.Timer)
	case Dispatch:
		if !c.awaiting[e.Call] {
			return nil
		}
		out = handle(ev)
	case NoticeEvent:
		out = handle(ev)
	default:
		id, ok := callOf(ev)
		if !ok || !c.pending[id] {
			return nil
		}
		if t, ok := c.guard[id]; ok {
			if due, armed := c.timers[t]; armed && !b.Now().Before(due) {
				delete(c.timers, t)
				out = fire(t)
			}
		}
		if !c.pending[id] { // the deadline cancelled it
			break
		}
		delete(c.pending, id)
		delete(c.guard, id)
		out = append(out, handle(ev)...)
	}
	c.Done()
	return out
}

// ms renders a duration as the reference's "<n>ms".
func ms(d time.Duration) string { return fmt.Sprintf("%dms", d.Milliseconds()) }
