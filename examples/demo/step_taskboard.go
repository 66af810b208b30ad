package main

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/harnesskit/harnesskit/taskboard"
)

// taskboardStep runs the background-task protocols against a simulated host, by hand: the
// step machines are sans-IO, so the demo performs each host call itself, decides when it
// settles, and moves a fake clock. A task is started, messaged, cancelled while its abort
// hangs past the 10 s deadline (the lease stays until the late reply), cancelled again,
// acknowledged, and revived. The board is printed after each step.
func taskboardStep(_ context.Context, e *env) error {
	clk := taskboard.NewManualClock(time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC))
	b, err := taskboard.NewBoard(clk, taskboard.Options{})
	if err != nil {
		return err
	}
	s := &tbSim{e: e, b: b, clk: clk, caps: taskboard.Caps{Flavor: taskboard.FlavorV1, StatusMap: true}}
	const parent = "ses_orchestrator"
	me := taskboard.Caller{SessionID: parent, Agent: "orchestrator"}
	b.Manage(parent)

	e.printf("1. task(): launch an explorer in the background\n")
	plan, err := b.PrepareTask(me, taskboard.TaskCall{Agent: "explorer", Description: "map the callers of Greet", Objective: "find every caller of Greet"})
	if err != nil {
		return err
	}
	launched, err := b.FinishTask(plan, taskboard.LaunchObservation{TaskID: "ses_child"})
	if err != nil {
		return err
	}
	s.say(launched.Render())
	s.board(parent)

	e.printf("\n2. task_message: queue a note without starting a turn\n")
	s.clk.Advance(30 * time.Second)
	m := taskboard.NewMessage(me, taskboard.MessageArgs{Ref: "exp-1", Text: "Include the tests."}, s.caps)
	s.run(m)
	if res, err := m.Outcome(); err != nil {
		s.say("error: " + err.Error())
	} else {
		s.say(res.Render())
	}
	s.board(parent)

	e.printf("\n3. task_cancel: the host does not answer the abort\n")
	s.hangAbort = true
	c := taskboard.NewCancel(me, taskboard.CancelArgs{Ref: "exp-1", Reason: "plan changed"}, s.caps)
	s.run(c)
	s.advance(10 * time.Second)
	if _, err := c.Outcome(); err != nil {
		s.say("error: " + err.Error())
	}
	s.board(parent)
	e.printf("   ... the abort finally settles (late): only its lease is released\n")
	s.settleHeld()
	s.board(parent)

	e.printf("\n4. task_cancel again: abort confirmed, the session stays idle for 300 ms\n")
	c = taskboard.NewCancel(me, taskboard.CancelArgs{Ref: "exp-1", Reason: "plan changed"}, s.caps)
	s.run(c)
	for !c.Replied() {
		s.advance(150 * time.Millisecond)
	}
	if res, err := c.Outcome(); err != nil {
		s.say("error: " + err.Error())
	} else {
		s.say(res.Render())
	}
	s.board(parent)

	e.printf("\n5. the orchestrator's turn ends: the result it was shown is acknowledged\n")
	s.clk.Advance(time.Minute)
	s.b.AcknowledgeShown(parent, s.b.View(parent).Shown)
	s.board(parent)

	e.printf("\n6. task_revive: continue the same session with a new prompt\n")
	s.clk.Advance(time.Minute)
	r := taskboard.NewRevive(me, taskboard.ReviveArgs{Ref: "exp-1", Prompt: "Only the public API, please."}, s.caps)
	s.run(r)
	if res, err := r.Outcome(); err != nil {
		s.say("error: " + err.Error())
	} else {
		s.say(res.Render())
	}
	s.board(parent)
	e.printf("\nHost calls, in order:\n")
	for _, c := range s.calls {
		e.printf("  %s\n", c)
	}
	return nil
}

// tbSim is the demo's simulated host and runner.
type tbSim struct {
	e         *env
	b         *taskboard.Board
	clk       *taskboard.ManualClock
	caps      taskboard.Caps
	hangAbort bool
	held      []heldCall
	timers    []simTimer
	calls     []string
}

type heldCall struct {
	m  taskboard.Machine
	ev taskboard.Event
}

type simTimer struct {
	m   taskboard.Machine
	id  taskboard.TimerID
	due time.Time
}

func (s *tbSim) say(text string) {
	for _, l := range strings.Split(text, "\n") {
		s.e.printf("   | %s\n", l)
	}
}

// board prints the prompt view and the live leases.
func (s *tbSim) board(parent string) {
	v := s.b.View(parent)
	s.e.printf("   board at +%s:\n", s.clk.Now().Sub(time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC)))
	for _, l := range strings.Split(strings.TrimRight(v.Text, "\n"), "\n") {
		s.e.printf("     %s\n", l)
	}
	s.e.printf("   leases: %s\n", strings.ReplaceAll(taskboard.RenderLeases(s.b), "\n", "\n           "))
}

// run starts a machine and performs its commands until nothing is immediately answerable.
func (s *tbSim) run(m taskboard.Machine) { s.exec(m, m.Start(s.b)) }

func (s *tbSim) exec(m taskboard.Machine, cmds []taskboard.Command) {
	for _, c := range cmds {
		switch c := c.(type) {
		case taskboard.StartTimer:
			s.timers = append(s.timers, simTimer{m: m, id: c.Timer, due: s.clk.Now().Add(c.After)})
		case taskboard.StopTimer:
			for i, t := range s.timers {
				if t.m == m && t.id == c.Timer {
					s.timers = append(s.timers[:i], s.timers[i+1:]...)
					break
				}
			}
		case taskboard.Spawn:
			s.run(c.Machine)
		case taskboard.Abort, taskboard.WriteMessage, taskboard.SendPrompt:
			// Guarded: ask the machine right before "sending".
			id := callID(c)
			next := m.Step(s.b, taskboard.Dispatch{Call: id})
			proceed := false
			for _, n := range next {
				if p, ok := n.(taskboard.Proceed); ok && p.Call == id {
					proceed = true
				}
			}
			s.exec(m, next)
			if proceed {
				s.perform(m, c)
			}
		case taskboard.ReadStatus, taskboard.ReadSession, taskboard.ReadMessages, taskboard.WaitIdle:
			s.perform(m, c)
		}
	}
}

func callID(c taskboard.Command) taskboard.CallID {
	return taskboard.CallID(reflect.ValueOf(c).FieldByName("Call").Uint())
}

// perform answers one host call the way the simulated host behaves.
func (s *tbSim) perform(m taskboard.Machine, c taskboard.Command) {
	var ev taskboard.Event
	switch c := c.(type) {
	case taskboard.Abort:
		s.calls = append(s.calls, "abort "+c.SessionID)
		ev = taskboard.AbortReply{Call: c.Call, Confirmed: true}
		if s.hangAbort {
			s.hangAbort = false
			s.held = append(s.held, heldCall{m: m, ev: ev})
			return
		}
	case taskboard.ReadStatus:
		s.calls = append(s.calls, "status map")
		ev = taskboard.StatusReply{Call: c.Call, Snapshot: taskboard.StatusSnapshot{"ses_child": {Status: taskboard.LiveIdle}}}
	case taskboard.ReadMessages:
		s.calls = append(s.calls, fmt.Sprintf("messages %s (last %d)", c.SessionID, c.Limit))
		ev = taskboard.MessagesReply{Call: c.Call, Entries: []taskboard.TranscriptEntry{
			{ID: "msg_1", Role: "user", Provider: "anthropic", Model: "claude", Variant: "high"},
			{ID: "msg_2", Role: "assistant", Agent: "explorer", Provider: "anthropic", Model: "claude"},
		}}
	case taskboard.WriteMessage:
		s.calls = append(s.calls, fmt.Sprintf("enqueue %s (noReply, %s/%s %s): %q", c.SessionID, c.Message.Provider, c.Message.Model, c.Message.Variant, c.Message.Text))
		ev = taskboard.WriteReply{Call: c.Call}
	case taskboard.SendPrompt:
		s.calls = append(s.calls, fmt.Sprintf("prompt %s (queued): %q", c.SessionID, c.Prompt.Text))
		ev = taskboard.PromptReply{Call: c.Call}
	default:
		return
	}
	s.exec(m, m.Step(s.b, ev))
}

// settleHeld delivers the replies the host held back.
func (s *tbSim) settleHeld() {
	held := s.held
	s.held = nil
	for _, h := range held {
		s.exec(h.m, h.m.Step(s.b, h.ev))
	}
}

// advance moves the fake clock, firing due timers in order.
func (s *tbSim) advance(d time.Duration) {
	end := s.clk.Now().Add(d)
	for {
		best := -1
		for i, t := range s.timers {
			if !t.due.After(end) && (best < 0 || t.due.Before(s.timers[best].due)) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		t := s.timers[best]
		s.timers = append(s.timers[:best], s.timers[best+1:]...)
		s.clk.Set(t.due)
		s.exec(t.m, t.m.Step(s.b, taskboard.Fired{Timer: t.id}))
	}
	s.clk.Set(end)
}
