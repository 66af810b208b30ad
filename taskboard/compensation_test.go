package taskboard

import (
	"errors"
	"testing"
	"time"
)

// orphan drives a revive to a pending admission, drops the record, and accepts the
// admission (before or after the deadline); it returns the spawned compensation run.
func orphan(t *testing.T, r *rig, caps caps, late bool) (*mrun, *mrun) {
	t.Helper()
	finished(r)
	m := reviveRun(r, caps, "ses_r")
	if caps.StatusMap {
		toAdmission(t, r, m)
	} else {
		m.messages(nil, nil)
		m.idle(nil)
		m.dispatch()
	}
	if late {
		r.advance(10 * time.Second)
	}
	r.b.Drop("ses_r")
	r.b.drain()
	m.prompt(nil)
	if len(r.runs) < 2 {
		t.Fatal("no compensation spawned")
	}
	return m, r.runs[len(r.runs)-1]
}

func compState(c *mrun) compensationState { return c.m.(*compensation).State() }

func TestCompensationScenarios(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, r *rig)
	}{
		{name: "E83_dropped_then_accepted_one_abort_release_on_quiescence", run: func(t *testing.T, r *rig) {
			for _, late := range []bool{false, true} {
				r := newRig(t, Options{})
				m, c := orphan(t, r, v1, late)
				if !late {
					_, err := outcome[ReviveResult](t, m)
					exactErr(t, err, ErrStale, "Task ses_r revive failed: admission accepted but invalidated by loss of the record; compensation initiated")
				}
				l := r.hasLease("ses_r", leaseRelaunch)
				if l.Owner != ownerCompensation || l.Phase() != phaseCompensating {
					t.Fatalf("lease %+v", l)
				}
				c.dispatch()
				c.abort(true, nil)
				c.status(idle(), nil)
				if compState(c) != compensationVerified || !r.logged("[task-revive] compensation quiescence verified") {
					t.Fatalf("state %s", compState(c))
				}
				r.noLease("ses_r")
				if r.count("Abort") != 1 {
					t.Fatalf("aborts %d", r.count("Abort"))
				}
				if _, ok := r.b.Get("ses_r"); ok || !r.b.tombstoned("ses_r") {
					t.Fatal("record recreated or tombstone cleared")
				}
				for _, n := range r.b.drain() {
					if n.Kind == noticeLaunched || n.Kind == noticeTerminal {
						t.Fatalf("notice %v", n)
					}
				}
				done(t, c)
			}
		}},
		{name: "E84_abort_confirmed_status_busy_lease_kept", run: func(t *testing.T, r *rig) {
			_, c := orphan(t, r, v1, false)
			c.dispatch()
			c.abort(true, nil)
			c.status(busy("ses_r"), nil)
			l := r.hasLease("ses_r", leaseRelaunch)
			if l.Owner != ownerCompensation || l.Phase() != phaseCompensating || compState(c) != compensationUnconfirmed {
				t.Fatalf("lease %+v state %s", l, compState(c))
			}
			if !r.logged("[task-revive] compensation unconfirmed") {
				t.Fatal("not logged")
			}
		}},
		{name: "E85_abort_error_one_abort_lease_kept", run: func(t *testing.T, r *rig) {
			_, c := orphan(t, r, v1, false)
			c.dispatch()
			c.abort(false, errors.New("EPIPE"))
			r.hasLease("ses_r", leaseRelaunch)
			if r.count("Abort") != 1 || r.count("ReadStatus") != 1 { // the revive's idle check only
				t.Fatalf("calls %v", r.performed)
			}
			done(t, c)
		}},
		{name: "E119_read_times_out_lease_kept_forever", run: func(t *testing.T, r *rig) {
			_, c := orphan(t, r, v2w, false)
			c.dispatch()
			c.abort(true, nil)
			r.advance(1500 * time.Millisecond)
			if compState(c) != compensationUnconfirmed || !r.logged("[task-revive] compensation unconfirmed") {
				t.Fatalf("state %s", compState(c))
			}
			r.advance(24 * time.Hour)
			r.hasLease("ses_r", leaseRelaunch)
			done(t, c)
		}},
		{name: "E120_valid_map_without_entry_quiescent", run: func(t *testing.T, r *rig) {
			_, c := orphan(t, r, v1, true)
			c.dispatch()
			c.abort(true, nil)
			c.status(map[string]LiveStatus{"someone-else": LiveBusy}, nil)
			if compState(c) != compensationVerified {
				t.Fatalf("state %s", compState(c))
			}
			r.noLease("ses_r")
		}},
		{name: "replacement_lease_never_released_by_compensation", run: func(t *testing.T, r *rig) {
			_, c := orphan(t, r, v1, false)
			l := r.hasLease("ses_r", leaseRelaunch)
			r.b.release(l) // ownership lost: the lease is no longer valid
			c.dispatch()
			if r.count("Abort") != 0 || compState(c) != compensationLost || !r.logged("compensation ownership lost") {
				t.Fatalf("state %s calls %v", compState(c), r.performed)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newRig(t, Options{})) })
	}
}

func notice(r *rig, id string) Notice {
	rec := r.get(id)
	return Notice{Kind: noticeTerminal, TaskID: id, ParentID: rec.ParentID, Generation: rec.Generation, TerminalRevision: rec.TerminalRevision, State: rec.State}
}

func TestNotifyScenarios(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, r *rig)
	}{
		{name: "E128_fails_twice_then_succeeds", run: func(t *testing.T, r *rig) {
			r.launch("ses_n", parent1, "explorer")
			r.complete("ses_n", "ok")
			n := r.start(newNotify(parent1, notice(r, "ses_n"), v1))
			for i := 0; i < 2; i++ {
				r.hasLease("ses_n", leaseNotification)
				n.dispatch()
				n.prompt(errors.New("busy parent"))
				r.noLease("ses_n")
				r.advance(time.Second)
			}
			n.dispatch()
			p := r.performed[len(r.performed)-1].(sendPrompt)
			if p.SessionID != parent1 || !p.Prompt.Synthetic || p.Prompt.Text != `Background task exp-1 (ses_n) finished: completed. Use task_result with task_id: "ses_n" to read it.` {
				t.Fatalf("prompt %+v", p)
			}
			n.prompt(nil)
			nm := n.m.(*notifyM)
			if nm.State() != notifySent || nm.Attempts() != 3 || r.count("SendPrompt") != 3 {
				t.Fatalf("state %s attempts %d", nm.State(), nm.Attempts())
			}
			r.noLease("ses_n")
			done(t, n)
		}},
		{name: "E129_withdrawn_while_parked_discarded", run: func(t *testing.T, r *rig) {
			rec := r.launch("ses_n", parent1, "explorer")
			l, _ := r.b.acquire(leaseMessage, "ses_n", rec.Generation, nil)
			r.clk.Advance(time.Second)
			r.complete("ses_n", "ok")
			old := notice(r, "ses_n")
			n := r.start(newNotify(parent1, old, v1))
			if n.m.(*notifyM).State() != notifyParked {
				t.Fatal("not parked")
			}
			r.clk.Advance(time.Second)
			r.b.markRunningFromLive("ses_n", rec.Generation, r.b.now()) // withdrawal
			r.b.release(l)
			for _, ev := range r.b.drain() {
				n.step(noticeEvent{Notice: ev})
			}
			if n.m.(*notifyM).State() != notifyDiscarded || r.count("SendPrompt") != 0 {
				t.Fatalf("state %s", n.m.(*notifyM).State())
			}
			rev := old.TerminalRevision
			if _, ok := r.b.acquire(leaseNotification, "ses_n", rec.Generation, &rev); ok {
				t.Fatal("old revision acquired")
			}
			done(t, n)
		}},
		{name: "E86_pending_notification_blocks_revive_until_settled", run: func(t *testing.T, r *rig) {
			r.launch("ses_r", parent1, "oracle")
			r.complete("ses_r", "first")
			n := r.start(newNotify(parent1, notice(r, "ses_r"), v1))
			n.dispatch()
			m := reviveRun(r, v1, "ses_r")
			_, err := outcome[ReviveResult](t, m)
			leaseErr(t, err, "Task ses_r cannot be revived: relaunch lease unavailable.")
			r.advance(10 * time.Second)
			m = reviveRun(r, v1, "ses_r")
			_, err = outcome[ReviveResult](t, m)
			checkErr(t, err, ErrLeaseUnavailable, "relaunch lease unavailable")
			n.prompt(nil)
			r.noLease("ses_r")
			m = reviveRun(r, v1, "ses_r")
			toAdmission(t, r, m)
			m.prompt(nil)
			m.messages(nil, nil)
			res, err := outcome[ReviveResult](t, m)
			noErr(t, err)
			if res.Generation < 2 || n.m.(*notifyM).State() != notifySent {
				t.Fatalf("res %+v", res)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newRig(t, Options{})) })
	}
}
