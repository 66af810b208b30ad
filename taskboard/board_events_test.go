package taskboard

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestBoardEdgeCases covers the §5 cases outside the reference group that need only the
// board: events, deletion, the ledger, leases without records, options and inspection.
func TestBoardEdgeCases(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		run  func(t *testing.T, e *env)
	}{
		{name: "E89_idle_then_busy_within_grace_stays_running", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			e.tick(time.Second)
			if _, g := e.b.stopCandidate("ses_a", r.Generation, e.b.now(), msgIdleUnconfirmed); g != gateDeferred {
				t.Fatalf("first idle: %s", g)
			}
			e.tick(2 * time.Second)
			e.b.observeBusy("ses_a", nil, e.b.now())
			e.tick(4 * time.Second)
			r, g := e.b.stopCandidate("ses_a", r.Generation, e.b.now(), msgIdleUnconfirmed)
			if g != gateDeferred || r.State != StateRunning {
				t.Fatalf("%s %s", g, r.State)
			}
			if n := e.noticesOf(noticeTerminal); len(n) != 0 {
				t.Fatalf("terminal notices %v", n)
			}
		}},
		{name: "E90_two_idle_readings_5s_apart_stop_once", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			e.tick(time.Second)
			e.b.stopCandidate("ses_a", r.Generation, e.b.now(), msgIdleUnconfirmed)
			e.tick(4999 * time.Millisecond)
			if _, g := e.b.stopCandidate("ses_a", r.Generation, e.b.now(), msgIdleUnconfirmed); g != gateDeferred {
				t.Fatalf("inside grace: %s", g)
			}
			e.tick(time.Millisecond)
			s, g := e.b.stopCandidate("ses_a", r.Generation, e.b.now(), msgIdleUnconfirmed)
			if g != gateCommitted || s.State != StateStopped || s.ResultSummary != "Background session stopped before a terminal task result was received." {
				t.Fatalf("%s %s", g, s.State)
			}
			e.tick(5 * time.Second)
			if _, g := e.b.stopCandidate("ses_a", r.Generation, e.b.now(), msgIdleUnconfirmed); g != gateStale {
				t.Fatalf("third: %s", g)
			}
			if n := e.noticesOf(noticeTerminal); len(n) != 1 {
				t.Fatalf("terminal notices %v", n)
			}
		}},
		{name: "E92_malformed_reading_uncertain_not_stopped", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			for range 3 {
				e.tick(5 * time.Second)
				e.b.markStatusUncertain("ses_a", r.Generation, msgMalformedEntry)
			}
			r = e.rec("ses_a")
			if r.State != StateRunning || !r.StatusUncertain || r.LastStatusError != msgMalformedEntry {
				t.Fatalf("got %+v", r)
			}
		}},
		{name: "E91_board_read_error_marks_running_uncertain_only", run: func(t *testing.T, e *env) {
			a := e.launch("ses_a", p1, "explorer")
			b := e.launch("ses_b", p1, "fixer")
			e.b.drain()
			for _, r := range []Record{a, b} {
				e.b.markStatusUncertain(r.TaskID, r.Generation, "live status lookup timed out after 5000ms")
			}
			for _, id := range []string{"ses_a", "ses_b"} {
				if r := e.rec(id); r.State != StateRunning || !r.StatusUncertain {
					t.Fatalf("%s: %s uncertain %v", id, r.State, r.StatusUncertain)
				}
			}
			if n := e.b.drain(); len(n) != 0 {
				t.Fatalf("notices %v", n)
			}
		}},
		{name: "E94_board_busy_during_pass_blocks_its_idle_reading", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			e.tick(time.Second)
			e.b.stopCandidate("ses_a", r.Generation, e.b.now(), msgIdleUnconfirmed) // earlier pass
			e.tick(5 * time.Second)
			passStart := e.b.now()
			e.tick(100 * time.Millisecond)
			e.b.observeBusy("ses_a", nil, e.b.now()) // busy while the pass's read is in flight
			got, g := e.b.stopCandidate("ses_a", r.Generation, passStart, msgIdleUnconfirmed)
			if got.State != StateRunning || g == gateCommitted || got.LastLiveBusyAt.Before(passStart) {
				t.Fatalf("%s %s", g, got.State)
			}
		}},
		{name: "E95_board_pass_from_G1_not_applied_to_G2", run: func(t *testing.T, e *env) {
			g1 := e.launch("ses_a", p1, "explorer")
			e.mustCommit("ses_a", StateCompleted, "ok")
			e.ack("ses_a")
			e.launch("ses_a", p1, "explorer")
			before := e.rec("ses_a")
			e.tick(time.Second)
			e.b.stopCandidate("ses_a", g1.Generation, e.b.now(), msgIdleUnconfirmed)
			e.b.markStatusUncertain("ses_a", g1.Generation, "x")
			e.b.markRunningFromLive("ses_a", g1.Generation, e.b.now())
			if after := e.rec("ses_a"); !equalRecords(before, after) {
				t.Fatalf("G1 pass changed G2:\n%s", diffRecords(before, after))
			}
		}},
		{name: "E96_quarantine_after_same_id_relaunch", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			e.mustCommit("ses_a", StateCompleted, "ok")
			e.tick(time.Second)
			g2 := e.launch("ses_a", p1, "explorer")
			if !g2.Quarantined {
				t.Fatal("relaunch not quarantined")
			}
			// Old-run events without a generation: idle, error, busy at or before RunStartedAt.
			e.tick(time.Second)
			if _, g := e.b.observeError("ses_a", nil, "old boom", false, e.b.now()); g != gateStale {
				t.Fatalf("old error: %s", g)
			}
			if _, ok := e.b.observeBusy("ses_a", nil, g2.RunStartedAt); ok {
				t.Fatal("old busy applied")
			}
			if r := e.rec("ses_a"); r.State != StateRunning || r.ActivityRevision != 0 {
				t.Fatalf("got %s rev %d", r.State, r.ActivityRevision)
			}
			r, ok := e.b.observeBusy("ses_a", nil, e.b.now())
			if !ok || r.Quarantined || r.ActivityRevision != 1 {
				t.Fatalf("fresh busy: %v %+v", ok, r)
			}
			if _, g := e.b.observeError("ses_a", nil, "new boom", false, e.b.now()); g != gateCommitted {
				t.Fatalf("error after quarantine: %s", g)
			}
		}},
		{name: "E97_explicit_stale_generation_ignored", run: func(t *testing.T, e *env) {
			g1 := e.launch("ses_a", p1, "explorer")
			e.mustCommit("ses_a", StateCompleted, "ok")
			g2 := e.launch("ses_a", p1, "explorer")
			before := e.rec("ses_a")
			e.tick(time.Second)
			e.b.observeBusy("ses_a", &g1.Generation, e.b.now())
			e.b.observeError("ses_a", &g1.Generation, "x", false, e.b.now())
			e.b.hostDeleted(deletionEvent{SessionID: "ses_a", Generation: &g1.Generation})
			if after := e.rec("ses_a"); !equalRecords(before, after) {
				t.Fatalf("changed:\n%s", diffRecords(before, after))
			}
			if _, ok := e.b.observeBusy("ses_a", &g2.Generation, e.b.now()); !ok {
				t.Fatal("current generation busy refused")
			}
		}},
		{name: "E98_deletion_without_generation_after_relaunch_ignored", run: func(t *testing.T, e *env) {
			e.b.manage("ses_a")
			e.launch("ses_a", p1, "explorer")
			e.mustCommit("ses_a", StateCompleted, "ok")
			g2 := e.launch("ses_a", p1, "explorer")
			if e.b.hostDeleted(deletionEvent{SessionID: "ses_a"}) {
				t.Fatal("deletion counted")
			}
			if r := e.rec("ses_a"); r.Generation != g2.Generation {
				t.Fatal("G2 lost")
			}
		}},
		{name: "E100_genuine_deletion_of_parent_and_child_teardown_keeps", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			e.launch("ses_b", p1, "explorer")
			e.launch("ses_a_child", "ses_a", "fixer")
			if e.b.hostDeleted(deletionEvent{SessionID: "ses_b", FallbackTeardown: true}) {
				t.Fatal("teardown counted")
			}
			e.rec("ses_b")
			if !e.b.hostDeleted(deletionEvent{SessionID: "ses_a"}) {
				t.Fatal("genuine deletion ignored")
			}
			for _, id := range []string{"ses_a", "ses_a_child"} {
				if _, ok := e.b.Get(id); ok || !e.b.tombstoned(id) {
					t.Fatalf("%s kept", id)
				}
			}
			if !e.b.hostDeleted(deletionEvent{SessionID: p1}) {
				t.Fatal("parent deletion ignored")
			}
			if len(e.b.Records(p1)) != 0 {
				t.Fatal("children of the deleted parent kept")
			}
			if r, _ := e.b.tombstoneReason("ses_b"); r != reasonParentCleared {
				t.Fatalf("reason %s", r)
			}
		}},
		{name: "E101_tombstone_blocks_adopt_early_and_late_completion", run: func(t *testing.T, e *env) {
			g1 := e.launch("ses_a", p1, "explorer")
			e.b.hostDeleted(deletionEvent{SessionID: "ses_a", Generation: &g1.Generation})
			epoch, ok := e.b.deletionEpoch("ses_a")
			if !ok {
				t.Fatal("no epoch")
			}
			_, err := e.b.adopt(adoptInput{TaskID: "ses_a", ParentID: p1, Agent: "explorer"})
			wantErr(t, err, ErrTombstoned, "Cannot adopt ses_a: the session was deleted from this board")
			_, err = e.b.registerLaunch(launchInput{TaskID: "ses_a", ParentID: p1, Agent: "explorer", Early: true})
			wantErr(t, err, ErrTombstoned, "Cannot register launch for ses_a: the session was deleted")
			if _, g := e.b.commitTerminal(commitInput{TaskID: "ses_a", Generation: g1.Generation, State: StateCompleted}); g != gateStale {
				t.Fatal("late completion applied")
			}
			e.b.observeBusy("ses_a", &g1.Generation, e.b.now())
			e.b.markStatusUncertain("ses_a", g1.Generation, "x")
			if _, ok := e.b.Get("ses_a"); ok {
				t.Fatal("record recreated")
			}
			e.launch("ses_a", p1, "explorer")
			if e.b.tombstoned("ses_a") {
				t.Fatal("registration kept the tombstone")
			}
			if ep, ok := e.b.deletionEpoch("ses_a"); !ok || ep != epoch {
				t.Fatal("epoch lost")
			}
		}},
		{name: "E102_error_then_idle_stays_error", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			if _, g := e.b.observeError("ses_a", nil, "rate limited", false, e.b.now()); g != gateCommitted {
				t.Fatalf("error: %s", g)
			}
			e.tick(10 * time.Second)
			if _, g := e.b.stopCandidate("ses_a", r.Generation, e.b.now(), msgIdleUnconfirmed); g != gateStale {
				t.Fatalf("idle: %s", g)
			}
			if _, g := e.commit("ses_a", StateCompleted, "x"); g != gateStale {
				t.Fatal("completed over error")
			}
			if r := e.rec("ses_a"); r.State != StateError || r.TotalErrors != 1 {
				t.Fatalf("got %s", r.State)
			}
		}},
		{name: "E141_board_deadline_claim_beats_late_inputs", opts: Options{WallClock: time.Minute}, run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			c, ok := e.b.claimDeadline("ses_a", r.Generation)
			if !ok || !c.TimedOut || !c.CancellationRequested || c.DeadlineExceededAt.IsZero() {
				t.Fatalf("claim: %+v", c)
			}
			if _, ok := e.b.claimDeadline("ses_a", r.Generation); ok {
				t.Fatal("claimed twice")
			}
			if _, g := e.commit("ses_a", StateCompleted, "late"); g != gateStale {
				t.Fatalf("completion after claim: %s", g)
			}
			e.tick(time.Second)
			if b, _ := e.b.markRunningFromLive("ses_a", r.Generation, e.b.now()); !b.TimedOut {
				t.Fatal("busy cleared the claimed timeout")
			}
			f, ok := e.b.finalizeClaim("ses_a", r.Generation, "abort was not confirmed")
			if !ok || f.State != StateError || !f.StatusUncertain || f.LastStatusError != "abort was not confirmed" || f.TimeoutCount != 1 {
				t.Fatalf("finalize: %+v", f)
			}
			if _, g := e.commit("ses_a", StateCompleted, "later"); g != gateStale {
				t.Fatal("completion replaced the timeout")
			}
			// An error input after a claim becomes the timeout error.
			r2 := e.launch("ses_b", p1, "explorer")
			e.b.claimDeadline("ses_b", r2.Generation)
			got, g := e.commit("ses_b", StateError, "provider error")
			if g != gateCommitted || got.ResultSummary != "Task exceeded its wall-clock limit of 60000 ms" || !got.TimedOut {
				t.Fatalf("%s %+v", g, got)
			}
		}},
		{name: "E115_lease_on_dropped_record", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			l := e.acquire(leaseRelaunch, "ses_a")
			e.b.Drop("ses_a")
			if !e.b.isTracked("ses_a") {
				t.Fatal("leased ID not tracked")
			}
			_, err := e.b.registerLaunch(launchInput{TaskID: "ses_a", ParentID: p1, Agent: "explorer"})
			wantErr(t, err, ErrLeaseHeld, "Cannot register launch for ses_a: a relaunch lease already owns this session")
			_, err = e.b.registerLaunch(launchInput{TaskID: "ses_a", ParentID: p1, Agent: "explorer", Lease: &l})
			wantErr(t, err, ErrStaleLease, "Cannot register launch for ses_a: relaunch lease is missing, stale, or belongs to another generation")
			_, err = e.b.adopt(adoptInput{TaskID: "ses_a", ParentID: p1, Agent: "explorer"})
			wantErr(t, err, ErrLeaseHeld, "Cannot adopt ses_a: a relaunch lease already owns this session")
			if !e.b.release(l) {
				t.Fatal("release failed")
			}
			if e.b.isTracked("ses_a") {
				t.Fatal("still tracked")
			}
			e.launch("ses_a", p1, "explorer")
		}},
		{name: "E116_no_ttl", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			l := e.acquire(leaseMessage, "ses_a")
			before := e.rec("ses_a")
			e.tick(24 * time.Hour)
			if got, ok := e.b.LeaseForTest("ses_a"); !ok || got != l || !e.b.validate(l) {
				t.Fatal("lease expired")
			}
			if after := e.rec("ses_a"); !equalRecords(before, after) {
				t.Fatal("record changed with the clock alone")
			}
		}},
		{name: "E122_absent_readings_then_stopped", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			e.tick(5 * time.Second)
			r, _ = e.b.stopCandidate("ses_a", r.Generation, e.b.now(), msgAbsentUnconfirmed)
			if !r.StatusUncertain || r.LastStatusError != msgAbsentUnconfirmed {
				t.Fatalf("got %+v", r)
			}
			e.tick(5 * time.Second)
			if r, g := e.b.stopCandidate("ses_a", r.Generation, e.b.now(), msgAbsentUnconfirmed); g != gateCommitted || r.State != StateStopped {
				t.Fatalf("%s %s", g, r.State)
			}
		}},
		{name: "E127_withdrawal_of_unacknowledged_completion_only", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			e.launch("ses_b", p1, "fixer")
			a := e.mustCommit("ses_a", StateCompleted, "ok")
			e.mustCommit("ses_b", StateCompleted, "ok")
			bRec := e.ack("ses_b")
			e.tick(time.Millisecond)
			r, _ := e.b.markRunningFromLive("ses_a", a.Generation, e.b.now())
			if r.State != StateRunning || r.TerminalRevision != a.TerminalRevision+1 {
				t.Fatalf("no withdrawal: %s %d", r.State, r.TerminalRevision)
			}
			r, _ = e.b.markRunningFromLive("ses_b", bRec.Generation, e.b.now())
			if r.State != StateReconciled || r.TerminalRevision != bRec.TerminalRevision {
				t.Fatalf("reconciled reopened: %s", r.State)
			}
		}},
		{name: "E129_notification_lease_for_old_revision_refused", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			a := e.mustCommit("ses_a", StateCompleted, "ok")
			e.tick(time.Millisecond)
			e.b.markRunningFromLive("ses_a", a.Generation, e.b.now())
			e.mustCommit("ses_a", StateCompleted, "again")
			if _, ok := e.b.acquire(leaseNotification, "ses_a", a.Generation, &a.TerminalRevision); ok {
				t.Fatal("acquired for a withdrawn revision")
			}
			cur := e.rec("ses_a").TerminalRevision
			if _, ok := e.b.acquire(leaseNotification, "ses_a", a.Generation, &cur); !ok {
				t.Fatal("current revision refused")
			}
		}},
		{name: "E145_adopt_after_drop_refused_after_eviction_allowed", opts: Options{MaxReusablePerAgent: 1}, run: func(t *testing.T, e *env) {
			e.launch("ses_d", p1, "explorer")
			e.b.Drop("ses_d")
			_, err := e.b.adopt(adoptInput{TaskID: "ses_d", ParentID: p1, Agent: "explorer"})
			wantErr(t, err, ErrTombstoned, "Cannot adopt ses_d: the session was deleted from this board")
			e.launch("ses_old", p1, "explorer")
			e.launch("ses_new", p1, "explorer")
			e.mustCommit("ses_old", StateCompleted, "a")
			e.ack("ses_old")
			e.tick(time.Second)
			e.mustCommit("ses_new", StateCompleted, "b")
			e.ack("ses_new")
			if r, _ := e.b.tombstoneReason("ses_old"); r != reasonEvicted {
				t.Fatalf("not evicted: %q", r)
			}
			epoch, _ := e.b.deletionEpoch("ses_old")
			_, err = e.b.adopt(adoptInput{TaskID: "ses_old", ParentID: p1, Agent: "fixer"})
			wantErr(t, err, ErrTombstoned, "Cannot adopt ses_old: the session was deleted from this board")
			r, err := e.b.adopt(adoptInput{TaskID: "ses_old", ParentID: p1, Agent: "explorer", State: StateCompleted, Summary: "a"})
			if err != nil || r.Alias != "ses_old" || r.Origin != originAdopted || !r.RecoveredWithoutPrompt || e.b.tombstoned("ses_old") {
				t.Fatalf("adopt: %v %+v", err, r)
			}
			if ep, _ := e.b.deletionEpoch("ses_old"); ep != epoch {
				t.Fatal("epoch changed")
			}
			_, err = e.b.adopt(adoptInput{TaskID: "ses_old", ParentID: p1, Agent: "explorer"})
			wantErr(t, err, ErrExists, "Cannot adopt ses_old: it is already tracked")
		}},
		{name: "E146_generations_board_wide_preserve_run_draw_discarded", run: func(t *testing.T, e *env) {
			a := e.launch("ses_a", p1, "explorer")
			b := e.launch("ses_b", p1, "fixer")
			p, err := e.b.registerLaunch(launchInput{TaskID: "ses_a", ParentID: p1, PreserveRun: true})
			if err != nil {
				t.Fatal(err)
			}
			e.mustCommit("ses_a", StateCompleted, "ok")
			r := e.launch("ses_a", p1, "explorer")
			if a.Generation != 1 || b.Generation != 2 || p.Generation != 1 || r.Generation != 4 {
				t.Fatalf("generations %d %d %d %d", a.Generation, b.Generation, p.Generation, r.Generation)
			}
		}},
		{name: "E147_hand_over_order", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			l := e.acquire(leaseRelaunch, "ses_a")
			a, ok := e.b.handOver(l, ownerAdmission)
			if !ok || a.Token != l.Token || a.Owner != ownerAdmission || a.Phase() != phaseSentUnknown {
				t.Fatalf("to admission: %v %+v", ok, a)
			}
			if _, ok := e.b.handOver(a, ownerCaller); ok {
				t.Fatal("handed back to caller")
			}
			c, ok := e.b.handOver(a, ownerCompensation)
			if !ok || c.Token != l.Token || c.Phase() != phaseCompensating {
				t.Fatalf("to compensation: %v %+v", ok, c)
			}
			for _, to := range []leaseOwner{ownerCaller, ownerAdmission, ownerCompensation} {
				if _, ok := e.b.handOver(c, to); ok {
					t.Fatalf("compensation handed to %s", to)
				}
			}
			if ls := e.b.LeasesForTest(); len(ls) != 1 || ls[0].Owner != ownerCompensation {
				t.Fatalf("live leases %v", ls)
			}
			e.b.release(l)
			stale := l
			if _, ok := e.b.handOver(stale, ownerAdmission); ok {
				t.Fatal("handed over a released lease")
			}
		}},
		{name: "R11_context_files_kept_9_one_per_path", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			e.b.NoteContextFile("ses_a", "small.go", 9, e.b.now())
			for i := range 12 {
				e.b.NoteContextFile("ses_a", fmt.Sprintf("f%d.go", i), 100, e.b.now().Add(time.Duration(i)*time.Second))
			}
			e.b.NoteContextFile("ses_a", "f11.go", 500, e.b.now().Add(time.Minute))
			r := e.rec("ses_a")
			if len(r.contextFiles) != 9 || r.contextFiles[0].Path != "f11.go" || r.contextFiles[0].Lines != 500 || r.contextLines() != 500+8*100 {
				t.Fatalf("context files %+v", r.contextFiles)
			}
			for _, f := range r.contextFiles {
				if f.Path == "small.go" || f.Path == "f0.go" || f.Path == "f1.go" || f.Path == "f2.go" {
					t.Fatalf("kept %s", f.Path)
				}
			}
		}},
		{name: "inspection_shows_why_an_id_is_excluded", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			e.launch("ses_b", p1, "explorer")
			l := e.acquire(leaseRelaunch, "ses_a")
			l, _ = e.b.handOver(l, ownerAdmission)
			l, _ = e.b.handOver(l, ownerCompensation)
			e.b.Drop("ses_a")
			e.acquire(leaseMessage, "ses_b")
			e.tick(90 * time.Minute)
			infos := e.b.LiveLeases()
			if len(infos) != 2 || infos[0].TaskID != "ses_a" || infos[0].HasRecord || infos[0].Owner != ownerCompensation || !strings.Contains(infos[0].String(), "phase=compensating") {
				t.Fatalf("%+v", infos)
			}
			if infos[0].HeldFor != 90*time.Minute || !infos[0].Since.Equal(t0) {
				t.Fatalf("held for %s since %s", infos[0].HeldFor, infos[0].Since)
			}
			s := infos[0].String()
			contains(t, s, "ses_a relaunch gen=1 owner=compensation phase=compensating record=deleted: ")
			contains(t, s, "stays excluded until this exact token is released")
			contains(t, infos[1].String(), "ses_b message gen=2 owner=caller record=running: task_message")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t, newEnv(t, tc.opts))
		})
	}
}

func TestOptionsValidation(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		wantErr string // substring naming the field; "" = valid
	}{
		{name: "zero_is_defaults"},
		{name: "E142_wall_clock_30s_rejected", opts: Options{WallClock: 30 * time.Second}, wantErr: "Options.WallClock"},
		{name: "E142_abort_grace_500ms_rejected", opts: Options{AbortGrace: 500 * time.Millisecond}, wantErr: "Options.AbortGrace"},
		{name: "wall_clock_60s_accepted", opts: Options{WallClock: 60 * time.Second}},
		{name: "wall_clock_max_accepted", opts: Options{WallClock: maxWallClock}},
		{name: "wall_clock_over_max_rejected", opts: Options{WallClock: maxWallClock + time.Millisecond}, wantErr: "Options.WallClock"},
		{name: "abort_grace_61s_rejected", opts: Options{AbortGrace: 61 * time.Second}, wantErr: "Options.AbortGrace"},
		{name: "negative_timing_rejected", opts: Options{Timing: Timing{VerifyBudget: -1}}, wantErr: "Options.Timing.VerifyBudget"},
		{name: "negative_cap_rejected", opts: Options{MaxReusablePerAgent: -1}, wantErr: "Options.MaxReusablePerAgent"},
		{name: "negative_history_rejected", opts: Options{Timing: Timing{MessageHistory: -3}}, wantErr: "Options.Timing.MessageHistory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := NewBoard(withClock(tc.opts, newManualClock(t0)))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				o := b.options()
				if o.MaxReusablePerAgent != 2 || o.MaxContextLines != 50_000 || o.AbortGrace != 10*time.Second ||
					o.WaitProtocol != "harnesskit.wait_for_user.v1" || o.Timing != defaultTiming() && tc.name == "zero_is_defaults" {
					t.Fatalf("defaults %+v", o)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err %v, want it to name %s", err, tc.wantErr)
			}
		})
	}
}

func TestTypedConstantsSpelling(t *testing.T) {
	tests := []struct {
		name string
		got  any
		want string
	}{
		{name: "state_running", got: StateRunning, want: "running"},
		{name: "state_reconciled", got: StateReconciled, want: "reconciled"},
		{name: "live_absent", got: LiveAbsent, want: "absent"},
		{name: "lease_notification", got: leaseNotification, want: "terminal-notification"},
		{name: "owner_compensation", got: ownerCompensation, want: "compensation"},
		{name: "revive_admission_unknown", got: reviveAdmissionUnknown, want: "admission_unknown"},
		{name: "cancel_unknown", got: cancelUnknown, want: "unknown"},
		{name: "source_board", got: sourceBoard, want: "board"},
		{name: "gate_deferred", got: gateDeferred, want: "deferred"},
		{name: "flavor_v2", got: FlavorV2, want: "v2"},
		{name: "origin_adopted", got: originAdopted, want: "adopted"},
		{name: "plan_adopt", got: planAdoptCandidate, want: "adopt_candidate"},
		{name: "notice_released", got: noticeLeaseReleased, want: "lease_released"},
		{name: "event_parent_idle", got: EventParentIdle, want: "parent_idle"},
		{name: "lease_string", got: leaseGrant{Kind: leaseRelaunch, Token: 7}, want: "background-job-relaunch-lease-7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fmt.Sprint(tc.got); got != tc.want {
				t.Fatalf("got %q want %q", got, tc.want)
			}
		})
	}
}
