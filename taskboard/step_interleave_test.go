package taskboard

import (
	"errors"
	"fmt"
	"testing"
)

// E132: a cancel of task A and a message to task B, interleaved step by step in every
// order, end exactly as when each runs alone.
func TestInterleavingsE132(t *testing.T) {
	type op struct {
		start func(r *rig) *mrun
		steps []func(m *mrun)
	}
	cancelA := op{
		start: func(r *rig) *mrun {
			return r.start(newCancel(orch, cancelArgs{Ref: "ses_a", Reason: "x"}, v2w))
		},
		steps: []func(m *mrun){
			func(m *mrun) { m.dispatch() },
			func(m *mrun) { m.abort(true, nil) },
			func(m *mrun) { m.idle(nil) },
		},
	}
	messageB := op{
		start: func(r *rig) *mrun {
			return r.start(newMessage(orch, messageArgs{Ref: "ses_b", Text: "hi"}, v2w))
		},
		steps: []func(m *mrun){
			func(m *mrun) { m.dispatch() },
			func(m *mrun) { m.write(nil) },
		},
	}
	summary := func(r *rig, ms ...*mrun) string {
		s := ""
		for _, m := range ms {
			v, isCancel := m.m.(outcomer[CancelResult])
			if isCancel {
				res, e := v.Outcome()
				s += fmt.Sprintf("cancel %+v %v; ", res, e)
				continue
			}
			res, e := m.m.(outcomer[MessageResult]).Outcome()
			s += fmt.Sprintf("message %+v %v; ", res, e)
		}
		for _, id := range []string{"ses_a", "ses_b"} {
			rec := r.get(id)
			s += fmt.Sprintf("%s=%s/%d/%s; ", id, rec.State, rec.TerminalRevision, rec.ResultSummary)
		}
		return s + fmt.Sprint(r.b.LeasesForTest())
	}
	setup := func() *rig {
		r := newRig(t, Options{})
		r.launch("ses_a", parent1, "explorer")
		r.launch("ses_b", parent1, "explorer")
		return r
	}
	// Alone, one after the other.
	r := setup()
	a := cancelA.start(r)
	for _, s := range cancelA.steps {
		s(a)
	}
	b := messageB.start(r)
	for _, s := range messageB.steps {
		s(b)
	}
	want := summary(r, a, b)

	// Every interleaving of the 3 + 2 steps (and both start orders).
	var orders [][]int
	var gen func(prefix []int, na, nb int)
	gen = func(prefix []int, na, nb int) {
		if na == 0 && nb == 0 {
			orders = append(orders, append([]int(nil), prefix...))
			return
		}
		if na > 0 {
			gen(append(prefix, 0), na-1, nb)
		}
		if nb > 0 {
			gen(append(prefix, 1), na, nb-1)
		}
	}
	gen(nil, len(cancelA.steps), len(messageB.steps))
	if len(orders) != 10 {
		t.Fatalf("%d orders", len(orders))
	}
	for _, order := range orders {
		for _, startBFirst := range []bool{false, true} {
			r := setup()
			var a, b *mrun
			if startBFirst {
				b = messageB.start(r)
				a = cancelA.start(r)
			} else {
				a = cancelA.start(r)
				b = messageB.start(r)
			}
			ia, ib := 0, 0
			for _, who := range order {
				if who == 0 {
					cancelA.steps[ia](a)
					ia++
				} else {
					messageB.steps[ib](b)
					ib++
				}
			}
			if got := summary(r, a, b); got != want {
				t.Fatalf("order %v (B first %t):\n got %s\nwant %s", order, startBFirst, got, want)
			}
		}
	}
}

// TestInterleavingsSameTask: a cancel and a message on the SAME task, the second started at
// every point of the first's protocol (in both roles). Whichever holds the task's lease
// finishes exactly as it would alone; the other is refused without a host call while the
// lease is held (lease unavailable) and, once the first has settled, runs normally or is
// refused because the task is no longer running. No interleaving writes to a cancelled
// task, aborts twice, or leaves a lease behind.
func TestInterleavingsSameTask(t *testing.T) {
	cancelSteps := []func(m *mrun){
		func(m *mrun) { m.dispatch() },
		func(m *mrun) { m.abort(true, nil) },
		func(m *mrun) { m.idle(nil) },
	}
	messageSteps := []func(m *mrun){
		func(m *mrun) { m.dispatch() },
		func(m *mrun) { m.write(nil) },
	}
	newCancel := func(r *rig) *mrun {
		return r.start(newCancel(orch, cancelArgs{Ref: "ses_a", Reason: "x"}, v2w))
	}
	newMessage := func(r *rig) *mrun {
		return r.start(newMessage(orch, messageArgs{Ref: "ses_a", Text: "hi"}, v2w))
	}
	errKind := func(err error) string {
		for _, k := range []error{ErrLeaseUnavailable, ErrNotRunning} {
			if errors.Is(err, k) {
				return k.Error()
			}
		}
		return fmt.Sprint(err)
	}
	writes := func(r *rig) int {
		n := 0
		for _, c := range r.performed {
			if _, ok := c.(writeMessage); ok {
				n++
			}
		}
		return n
	}
	t.Run("message_during_cancel", func(t *testing.T) {
		for k := 0; k <= len(cancelSteps); k++ {
			r := newRig(t, Options{})
			r.launch("ses_a", parent1, "explorer")
			c := newCancel(r)
			for _, s := range cancelSteps[:k] {
				s(c)
			}
			m := newMessage(r)
			_, merr := outcome[MessageResult](t, m)
			for _, s := range cancelSteps[k:] {
				s(c)
			}
			cres, cerr := outcome[CancelResult](t, c)
			want := ErrLeaseUnavailable.Error()
			if k == len(cancelSteps) {
				want = ErrNotRunning.Error()
			}
			if cerr != nil || cres.State != string(StateCancelled) || errKind(merr) != want || writes(r) != 0 {
				t.Fatalf("message started after %d cancel steps: cancel %+v %v; message %v (want %s); writes %d", k, cres, cerr, merr, want, writes(r))
			}
			if rec := r.get("ses_a"); rec.State != StateCancelled {
				t.Fatalf("after %d steps: state %s", k, rec.State)
			}
			r.noLease("ses_a")
		}
	})
	t.Run("cancel_during_message", func(t *testing.T) {
		for k := 0; k <= len(messageSteps); k++ {
			r := newRig(t, Options{})
			r.launch("ses_a", parent1, "explorer")
			m := newMessage(r)
			for _, s := range messageSteps[:k] {
				s(m)
			}
			c := newCancel(r)
			refused := c.m.Replied()
			if !refused {
				for _, s := range cancelSteps {
					s(c)
				}
			}
			for _, s := range messageSteps[k:] {
				s(m)
			}
			mres, merr := outcome[MessageResult](t, m)
			cres, cerr := outcome[CancelResult](t, c)
			if merr != nil || mres.Status != "queued" || writes(r) != 1 {
				t.Fatalf("cancel started after %d message steps: message %+v %v, writes %d", k, mres, merr, writes(r))
			}
			wantState := StateRunning
			if k < len(messageSteps) {
				if errKind(cerr) != ErrLeaseUnavailable.Error() || r.count("Abort") != 0 {
					t.Fatalf("cancel while the message holds the lease: %+v %v", cres, cerr)
				}
			} else {
				wantState = StateCancelled
				if cerr != nil || cres.State != string(StateCancelled) {
					t.Fatalf("cancel after the message settled: %+v %v", cres, cerr)
				}
			}
			if rec := r.get("ses_a"); rec.State != wantState {
				t.Fatalf("after %d steps: state %s, want %s", k, rec.State, wantState)
			}
			r.noLease("ses_a")
		}
	})
}
