package taskboard

import (
	"fmt"
	"log/slog"
	"time"
)

// ids allocates CallIDs and TimerIDs; a machine shares its allocator with the machines it
// embeds so that their IDs never collide.
type ids struct {
	call  callNo
	timer timerID
}

func (i *ids) nextCall() callNo   { i.call++; return i.call }
func (i *ids) nextTimer() timerID { i.timer++; return i.timer }

// core is the bookkeeping every machine shares: pending calls, armed timers with their due
// times, guards between a call and its deadline timer, and the replied/done flags.
//
// The tick rule lives here: when a reply arrives for a call whose deadline timer is
// due (now ≥ due) but has not fired yet, the timer is processed first, so the reply counts
// as late whichever of the two the runner delivers first.
type core struct {
	ids      *ids
	pending  map[callNo]bool       // emitted host calls not settled (and not cancelled)
	awaiting map[callNo]bool       // guarded calls waiting for their Dispatch
	timers   map[timerID]time.Time // armed timers and their due times
	guard    map[callNo]timerID    // deadline timer guarding a call
	replied  bool
	done     bool
	hold     bool // the machine waits for a notice (parked), not a reply or timer
	logs     []logLine
}

func newCore(i *ids) core {
	if i == nil {
		i = &ids{}
	}
	return core{
		ids:      i,
		pending:  map[callNo]bool{},
		awaiting: map[callNo]bool{},
		timers:   map[timerID]time.Time{},
		guard:    map[callNo]timerID{},
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
func (c *core) call(guardedCall bool) callNo {
	id := c.ids.nextCall()
	if guardedCall {
		c.awaiting[id] = true
	} else {
		c.pending[id] = true
	}
	return id
}

// timer arms a timer due d from now.
func (c *core) timer(b *Board, d time.Duration) (timerID, command) {
	d = budget(d)
	id := c.ids.nextTimer()
	c.timers[id] = b.now().Add(d)
	return id, startTimer{Timer: id, After: d}
}

// deadlineRead registers a host read that is not guarded (it needs no Dispatch) and arms
// its deadline timer of d; a reply after the timer fired is ignored (see step).
func (c *core) deadlineRead(b *Board, d time.Duration) (callNo, timerID, command) {
	id := c.call(false)
	t, st := c.timer(b, d)
	c.guard[id] = t
	return id, t, st
}

// stop disarms a timer; it returns nil when the timer is not armed.
func (c *core) stop(t timerID) []command {
	if _, ok := c.timers[t]; !ok {
		return nil
	}
	delete(c.timers, t)
	return []command{stopTimer{Timer: t}}
}

// cancel drops a pending call; its reply will be ignored.
func (c *core) cancel(id callNo) []command {
	if !c.pending[id] {
		return nil
	}
	delete(c.pending, id)
	delete(c.guard, id)
	return []command{cancelCall{Call: id}}
}

// withdraw answers a Dispatch negatively.
func (c *core) withdraw(id callNo) []command {
	delete(c.awaiting, id)
	if t, ok := c.guard[id]; ok {
		delete(c.guard, id)
		return append([]command{withdraw{Call: id}}, c.stop(t)...)
	}
	return []command{withdraw{Call: id}}
}

// proceed answers a Dispatch positively; the call becomes pending.
func (c *core) proceed(id callNo) []command {
	delete(c.awaiting, id)
	c.pending[id] = true
	return []command{proceed{Call: id}}
}

func (c *core) log(level slog.Level, msg string, attrs ...slog.Attr) command {
	l := logLine{Level: level, Msg: msg, Attrs: attrs}
	c.logs = append(c.logs, l)
	return l
}

// step runs the common part of every machine's Step: it drops events that are unknown,
// duplicated or arrive after Done, applies the tick rule, and hands the rest to fire
// (timers) and handle (replies, dispatches and notices).
func (c *core) step(b *Board, ev event, fire func(timerID) []command, handle func(event) []command) []command {
	if c.Done() {
		return nil
	}
	var out []command
	switch e := ev.(type) {
	case fired:
		if _, ok := c.timers[e.Timer]; !ok {
			return nil
		}
		delete(c.timers, e.Timer)
		out = fire(e.Timer)
	case dispatch:
		if !c.awaiting[e.Call] {
			return nil
		}
		out = handle(ev)
	case noticeEvent:
		out = handle(ev)
	default:
		id, ok := ev.call()
		if !ok || !c.pending[id] {
			return nil
		}
		if t, ok := c.guard[id]; ok {
			if due, armed := c.timers[t]; armed && !b.now().Before(due) {
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
