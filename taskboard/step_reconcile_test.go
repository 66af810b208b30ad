package taskboard

import (
	"errors"
	"testing"
	"time"
)

func pass(r *rig) *mrun { return r.start(newReconcilePass(v1)) }

func TestReconcileScenarios(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, r *rig)
	}{
		{name: "E90_idle_at_t_and_t_plus_5s_stopped_once", run: func(t *testing.T, r *rig) {
			r.launch("ses_a", parent1, "explorer")
			r.clk.Advance(time.Second)
			pass(r).status(idle("ses_a"), nil)
			if rec := r.get("ses_a"); rec.State != StateRunning || !rec.StatusUncertain || rec.LastStatusError != msgIdleUnconfirmed {
				t.Fatalf("first reading: %+v", rec)
			}
			r.clk.Advance(5 * time.Second)
			r.b.drain()
			pass(r).status(idle("ses_a"), nil)
			if r.get("ses_a").State != StateStopped {
				t.Fatal("not stopped")
			}
			r.clk.Advance(5 * time.Second)
			pass(r) // nothing running: no read
			terminal := 0
			for _, n := range r.b.drain() {
				if n.Kind == noticeTerminal {
					terminal++
				}
			}
			if terminal != 1 || r.count("ReadStatus") != 2 {
				t.Fatalf("terminal notices %d reads %d", terminal, r.count("ReadStatus"))
			}
		}},
		{name: "E91_read_error_all_running_uncertain", run: func(t *testing.T, r *rig) {
			r.launch("ses_a", parent1, "explorer")
			r.launch("ses_b", parent2, "explorer")
			r.b.drain()
			pass(r).status(nil, errors.New("status endpoint down"))
			for _, id := range []string{"ses_a", "ses_b"} {
				if rec := r.get(id); rec.State != StateRunning || !rec.StatusUncertain || rec.LastStatusError != "status endpoint down" {
					t.Fatalf("%s: %+v", id, rec)
				}
			}
			if ns := r.b.drain(); len(ns) != 0 {
				t.Fatalf("notices %v", ns)
			}
		}},
		{name: "E92_malformed_uncertain_not_stopped", run: func(t *testing.T, r *rig) {
			r.launch("ses_a", parent1, "explorer")
			for i := 0; i < 3; i++ {
				r.clk.Advance(5 * time.Second)
				pass(r).status(map[string]LiveStatus{"ses_a": "??"}, nil)
			}
			if rec := r.get("ses_a"); rec.State != StateRunning || rec.LastStatusError != msgMalformedEntry {
				t.Fatalf("%+v", rec)
			}
		}},
		{name: "E93_read_hangs_ends_uncertain_after_5s", run: func(t *testing.T, r *rig) {
			r.launch("ses_a", parent1, "explorer")
			p := pass(r)
			r.advance(5 * time.Second)
			if rec := r.get("ses_a"); !rec.StatusUncertain || rec.LastStatusError != "live status lookup timed out after 5000ms" {
				t.Fatalf("%+v", rec)
			}
			done(t, p)
		}},
		{name: "E94_busy_during_read_does_not_stop", run: func(t *testing.T, r *rig) {
			r.launch("ses_a", parent1, "explorer")
			r.clk.Advance(time.Second)
			pass(r).status(idle("ses_a"), nil)
			r.clk.Advance(5 * time.Second)
			p := pass(r)
			r.clk.Advance(time.Millisecond)
			r.b.observeBusy("ses_a", nil, r.b.now())
			p.status(idle("ses_a"), nil)
			if r.get("ses_a").State != StateRunning {
				t.Fatal("stopped despite a busy during the read")
			}
		}},
		{name: "E95_pass_before_relaunch_not_applied_to_G2", run: func(t *testing.T, r *rig) {
			r.launch("ses_a", parent1, "explorer")
			r.complete("ses_a", "x")
			r.ack("ses_a")
			r.launch("ses_b", parent1, "explorer")
			p := pass(r) // captures ses_b only; ses_a is not running
			l, _ := r.b.acquire(leaseRelaunch, "ses_a", r.get("ses_a").Generation, nil)
			if _, err := r.b.registerLaunch(launchInput{TaskID: "ses_a", ParentID: parent1, Agent: "explorer", Lease: &l}); err != nil {
				t.Fatal(err)
			}
			r.b.release(l)
			before := r.get("ses_a")
			p.status(map[string]LiveStatus{"ses_a": "??"}, nil)
			if !equalRecords(before, r.get("ses_a")) {
				t.Fatal("pass applied to G2")
			}
		}},
		{name: "E122_absent_at_t_and_t_plus_5s_stopped", run: func(t *testing.T, r *rig) {
			r.launch("ses_a", parent1, "explorer")
			r.clk.Advance(time.Second)
			pass(r).status(map[string]LiveStatus{}, nil)
			if rec := r.get("ses_a"); rec.LastStatusError != msgAbsentUnconfirmed || rec.State != StateRunning {
				t.Fatalf("%+v", rec)
			}
			r.clk.Advance(5 * time.Second)
			pass(r).status(map[string]LiveStatus{}, nil)
			if r.get("ses_a").State != StateStopped {
				t.Fatal("not stopped")
			}
		}},
		{name: "evidence_finished_entry_after_baseline_completes", run: func(t *testing.T, r *rig) {
			r.launch("ses_a", parent1, "explorer")
			e := r.start(newEvidence("ses_a", r.get("ses_a").Generation, v1))
			e.messages([]TranscriptEntry{{ID: "a", Role: "assistant", Finished: true, Text: "result text"}}, nil)
			if rec := r.get("ses_a"); rec.State != StateCompleted || rec.ResultSummary != "result text" {
				t.Fatalf("%+v", rec)
			}
		}},
		{name: "evidence_all_attempts_fail_uncertain", run: func(t *testing.T, r *rig) {
			r.launch("ses_a", parent1, "explorer")
			e := r.start(newEvidence("ses_a", r.get("ses_a").Generation, v1))
			for i := 0; i < 3; i++ {
				e.messages(nil, errors.New("down"))
				r.advance(5 * time.Second)
			}
			if rec := r.get("ses_a"); rec.State != StateRunning || !rec.StatusUncertain {
				t.Fatalf("%+v", rec)
			}
			if r.count("ReadMessages") != 3 {
				t.Fatalf("reads %d", r.count("ReadMessages"))
			}
			done(t, e)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newRig(t, Options{})) })
	}
}
