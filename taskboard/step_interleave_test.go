package taskboard_test

import (
	"fmt"
	"testing"

	tb "github.com/harnesskit/harnesskit/taskboard"
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
			return r.start(tb.NewCancel(orch, tb.CancelArgs{Ref: "ses_a", Reason: "x"}, v2w))
		},
		steps: []func(m *mrun){
			func(m *mrun) { m.dispatch() },
			func(m *mrun) { m.abort(true, nil) },
			func(m *mrun) { m.idle(nil) },
		},
	}
	messageB := op{
		start: func(r *rig) *mrun {
			return r.start(tb.NewMessage(orch, tb.MessageArgs{Ref: "ses_b", Text: "hi"}, v2w))
		},
		steps: []func(m *mrun){
			func(m *mrun) { m.dispatch() },
			func(m *mrun) { m.write(nil) },
		},
	}
	summary := func(r *rig, ms ...*mrun) string {
		s := ""
		for _, m := range ms {
			v, isCancel := m.m.(outcomer[tb.CancelResult])
			if isCancel {
				res, e := v.Outcome()
				s += fmt.Sprintf("cancel %+v %v; ", res, e)
				continue
			}
			res, e := m.m.(outcomer[tb.MessageResult]).Outcome()
			s += fmt.Sprintf("message %+v %v; ", res, e)
		}
		for _, id := range []string{"ses_a", "ses_b"} {
			rec := r.get(id)
			s += fmt.Sprintf("%s=%s/%d/%s; ", id, rec.State, rec.TerminalRevision, rec.ResultSummary)
		}
		return s + fmt.Sprint(r.b.LeasesForTest())
	}
	setup := func() *rig {
		r := newRig(t, tb.Options{})
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
