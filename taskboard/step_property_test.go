package taskboard

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// tbT is what newRig needs from a test: *testing.T or *rapid.T.
type tbT interface {
	Helper()
	Fatalf(format string, args ...any)
	Fatal(args ...any)
}

// scenario builds a board and a machine for one property run.
type scenario struct {
	name  string
	caps  caps
	setup func(r *rig) machine
}

var propScenarios = []scenario{
	{"cancel_v1", v1, func(r *rig) machine {
		r.launch("ses_p", parent1, "explorer")
		return newCancel(orch, cancelArgs{Ref: "ses_p", Reason: "prop"}, v1)
	}},
	{"cancel_v2", v2, func(r *rig) machine {
		r.launch("ses_p", parent1, "explorer")
		return newCancel(orch, cancelArgs{Ref: "ses_p"}, v2)
	}},
	{"cancel_v2_idle", v2w, func(r *rig) machine {
		r.launch("ses_p", parent1, "explorer")
		return newCancel(orch, cancelArgs{Ref: "ses_p"}, v2w)
	}},
	{"message_v1", v1, func(r *rig) machine {
		r.launch("ses_p", parent1, "explorer")
		return newMessage(orch, messageArgs{Ref: "ses_p", Text: "note"}, v1)
	}},
	{"message_v2", v2, func(r *rig) machine {
		r.launch("ses_p", parent1, "explorer")
		return newMessage(orch, messageArgs{Ref: "ses_p", Text: "note"}, v2)
	}},
	{"revive_running_v1", v1, func(r *rig) machine {
		r.launch("ses_p", parent1, "oracle")
		return newRevive(orch, reviveArgs{Ref: "ses_p", Prompt: "go"}, v1)
	}},
	{"revive_done_v2_idle", v2w, func(r *rig) machine {
		r.launch("ses_p", parent1, "oracle")
		r.complete("ses_p", "first")
		return newRevive(orch, reviveArgs{Ref: "ses_p", Prompt: "go"}, v2w)
	}},
	{"status_v1", v1, func(r *rig) machine {
		r.launch("ses_p", parent1, "explorer")
		return newStatus(orch, statusArgs{Ref: "ses_p"}, v1)
	}},
}

// answer builds the reply to a pending call from one drawn choice.
func answer(r *rig, c command, choice int) event {
	fail := errors.New("host failure")
	k := choice % 3
	switch c := c.(type) {
	case abort:
		return abortReply{Call: c.Call, Confirmed: k != 1, Err: map[bool]error{true: fail}[k == 2]}
	case readStatus:
		return statusReply{Call: c.Call, Snapshot: []map[string]LiveStatus{idle("ses_p"), busy("ses_p"), {}}[k]}
	case readSession:
		info := SessionInfo{ParentID: parent1}
		if k == 0 {
			info.IdleAt = r.b.now()
		}
		return sessionReply{Call: c.Call, Info: info, Err: map[bool]error{true: fail}[k == 2]}
	case readMessages:
		return messagesReply{Call: c.Call, Entries: [][]TranscriptEntry{history, nil, {{ID: "z", Role: "assistant", Finished: true, Text: "fast"}}}[k]}
	case waitIdle:
		return idleReply{Call: c.Call, Err: map[bool]error{true: fail}[k == 1]}
	case writeMessage:
		return writeReply{Call: c.Call, Err: map[bool]error{true: fail}[k == 1]}
	case sendPrompt:
		return promptReply{Call: c.Call, Err: map[bool]error{true: fail}[k == 1]}
	}
	panic(fmt.Sprintf("no answer for %T", c))
}

func earliestDue(mr *mrun) (time.Time, bool) {
	var best time.Time
	ok := false
	for _, due := range mr.timers {
		if !ok || due.Before(best) {
			best, ok = due, true
		}
	}
	return best, ok
}

// play runs one machine to the end with a fixed list of choices. With timerFirst, a reply
// scheduled exactly at a deadline is delivered after the timer fires; otherwise before it.
func play(t tbT, sc scenario, choices []int, timerFirst bool) string {
	r := newRig(t, Options{})
	m := r.start(sc.setup(r))
	for i := 0; i < len(choices) && !m.m.Done(); i++ {
		c := choices[i]
		if len(m.awaiting) > 0 {
			m.dispatch()
			continue
		}
		var id callNo
		for _, cid := range m.order {
			if _, ok := m.pending[cid]; ok {
				id = cid
				break
			}
		}
		due, hasTimer := earliestDue(m)
		if id == 0 {
			if !hasTimer {
				break
			}
			r.advance(due.Sub(r.b.now()))
			continue
		}
		ev := answer(r, m.pending[id], c/4)
		switch c % 4 {
		case 0:
		case 1:
			r.advance(100 * time.Millisecond)
		case 2: // exactly at the deadline instant
			if hasTimer {
				if timerFirst {
					r.advance(due.Sub(r.b.now()))
				} else {
					r.clk.Set(due)
				}
			}
		case 3:
			if hasTimer {
				r.advance(due.Sub(r.b.now()) + time.Millisecond)
			}
		}
		if _, still := m.pending[id]; still || !timerFirst {
			m.step(ev)
		}
		r.advance(0)
	}
	var out string
	if m.m.Replied() {
		v := reflect.ValueOf(m.m).MethodByName("Outcome").Call(nil)
		out = fmt.Sprintf("%+v err=%v", v[0].Interface(), v[1].Interface())
	}
	rec, _ := r.b.Get("ses_p")
	var calls []string
	for _, c := range r.performed {
		calls = append(calls, reflect.TypeOf(c).Name())
	}
	var logs []string
	for _, l := range r.logs {
		logs = append(logs, l.Msg)
	}
	return fmt.Sprintf("outcome: %s\nrecord: %+v\nleases: %v\ncalls: %v\nlogs: %v\ndone: %t",
		out, rec, r.b.LeasesForTest(), calls, logs, m.m.Done())
}

// TestTickRuleProperty checks invariants 39 and 40 of §6 for the machines: the outcome,
// the record, the leases and the host calls do not depend on whether a reply due at a
// deadline instant is seen before or after the timer, and replaying the same choices gives
// the same result.
func TestTickRuleProperty(t *testing.T) { t.Run("p", rapid.MakeCheck(tickRuleProp)) }

// FuzzTickRule runs the same property under go test -fuzz (seeds: a few fixed byte
// strings; rapid turns any input into draws).
func FuzzTickRule(f *testing.F) {
	for _, seed := range rapidSeeds(1024) { // long enough for every draw (see FuzzStateMachine)
		f.Add(seed)
	}
	f.Fuzz(rapid.MakeFuzz(tickRuleProp))
}

func tickRuleProp(rt *rapid.T) {
	sc := rapid.SampledFrom(propScenarios).Draw(rt, "scenario")
	choices := rapid.SliceOfN(rapid.IntRange(0, 11), 1, 40).Draw(rt, "choices")
	a := play(rt, sc, choices, true)
	b := play(rt, sc, choices, false)
	if a != b {
		rt.Fatalf("%s: tick order changed the result\ntimer first:\n%s\nreply first:\n%s", sc.name, a, b)
	}
	if again := play(rt, sc, choices, true); again != a {
		rt.Fatalf("%s: replay differs\n%s\n%s", sc.name, a, again)
	}
}
