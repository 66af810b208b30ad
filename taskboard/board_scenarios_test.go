package taskboard

import (
	"slices"
	"testing"
	"time"
)

const p1, p2 = "parent-1", "parent-2"

// TestBoardScenarios covers the "Board (reference scenarios)" group of spec §5 (1–39, except
// 35, which is about driver subscriptions).
func TestBoardScenarios(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		run  func(t *testing.T, e *env)
	}{
		{name: "E1_launch_explorer_running_alias_exp_1", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			if r.State != StateRunning || r.Alias != "exp-1" || r.TaskGeneration != 1 {
				t.Fatalf("got %s alias %s taskgen %d", r.State, r.Alias, r.TaskGeneration)
			}
			if !e.b.hasRunning(p1) || e.b.hasRunning(p2) {
				t.Fatal("HasRunning wrong")
			}
			if r2 := e.launch("ses_b", p1, "explorer"); r2.Alias != "exp-2" {
				t.Fatalf("second alias %s", r2.Alias)
			}
			if r3 := e.launch("ses_c", p2, "explorer"); r3.Alias != "exp-1" {
				t.Fatalf("other parent alias %s", r3.Alias)
			}
		}},
		{name: "E2_cancellation_lease_blocks_relaunch_and_registration", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			e.acquire(leaseCancellation, "ses_a")
			if _, ok := e.b.acquire(leaseRelaunch, "ses_a", r.Generation, nil); ok {
				t.Fatal("relaunch acquired under a cancellation lease")
			}
			_, err := e.b.registerLaunch(launchInput{TaskID: "ses_a", ParentID: p1, Agent: "explorer"})
			wantErr(t, err, ErrLeaseHeld, "Cannot register launch for ses_a: a cancellation lease already owns this session")
			if got := e.rec("ses_a").Generation; got != r.Generation {
				t.Fatalf("generation moved %d → %d", r.Generation, got)
			}
		}},
		{name: "E3_relaunch_lease_exact_release", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			l := e.acquire(leaseRelaunch, "ses_a")
			if _, ok := e.b.acquire(leaseCancellation, "ses_a", r.Generation, nil); ok {
				t.Fatal("cancellation acquired under a relaunch lease")
			}
			wrongTok, wrongGen := l, l
			wrongTok.Token++
			wrongGen.Generation++
			if e.b.release(wrongTok) || e.b.release(wrongGen) {
				t.Fatal("release with a wrong token or generation succeeded")
			}
			r2, err := e.b.registerLaunch(launchInput{TaskID: "ses_a", ParentID: p1, Agent: "explorer", Lease: &l})
			if err != nil || r2.Generation <= r.Generation || r2.TaskGeneration != 2 {
				t.Fatalf("relaunch: %v gen %d", err, r2.Generation)
			}
			if !e.b.release(l) {
				t.Fatal("release of the exact lease failed")
			}
		}},
		{name: "E4_message_lease_blocks_then_release", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			l := e.acquire(leaseMessage, "ses_a")
			for _, k := range []leaseKind{leaseCancellation, leaseRelaunch} {
				if _, ok := e.b.acquire(k, "ses_a", r.Generation, nil); ok {
					t.Fatalf("%s acquired under a message lease", k)
				}
			}
			_, err := e.b.registerLaunch(launchInput{TaskID: "ses_a", ParentID: p1, Agent: "explorer"})
			wantErr(t, err, ErrLeaseHeld, "Cannot register launch for ses_a: a message lease already owns this session")
			if !e.b.release(l) {
				t.Fatal("release failed")
			}
			e.acquire(leaseCancellation, "ses_a")
		}},
		{name: "E5_exclusion_4x4_and_tokens", run: func(t *testing.T, e *env) {
			kinds := leaseKinds[:]
			var tokens []uint64
			n := 0
			for _, held := range kinds {
				for _, tried := range kinds {
					n++
					id := "ses_" + string(rune('a'+n))
					e.launch(id, p1, "fixer")
					if held == leaseNotification {
						e.mustCommit(id, StateCompleted, "done")
					}
					hl := e.acquire(held, id)
					tokens = append(tokens, hl.Token)
					// Put the record in a state where `tried` would be acquirable.
					switch r := e.rec(id); {
					case tried == leaseNotification && r.State == StateRunning:
						e.mustCommit(id, StateCompleted, "done")
					case (tried == leaseCancellation || tried == leaseMessage) && r.State != StateRunning:
						e.tick(time.Millisecond)
						if r2, _ := e.b.markRunningFromLive(id, r.Generation, e.b.now()); r2.State != StateRunning {
							t.Fatalf("withdrawal failed: %s", r2.State)
						}
					}
					gen := e.rec(id).Generation
					if _, ok := e.b.acquire(tried, id, gen, nil); ok {
						t.Fatalf("%s acquired while %s is held", tried, held)
					}
					if !e.b.release(hl) {
						t.Fatalf("release of %s failed", held)
					}
					if e.b.release(hl) {
						t.Fatal("second release succeeded")
					}
					nl, ok := e.b.acquire(tried, id, gen, nil)
					if !ok {
						t.Fatalf("%s not acquirable after releasing %s", tried, held)
					}
					tokens = append(tokens, nl.Token)
					if nl.Token == hl.Token {
						t.Fatal("token reused")
					}
					old := hl
					old.Kind, old.Generation, old.TerminalRevision = nl.Kind, nl.Generation, nl.TerminalRevision
					if e.b.release(old) {
						t.Fatal("the old token released the new lease")
					}
					if !e.b.release(nl) {
						t.Fatal("new lease not releasable")
					}
				}
			}
			if !slices.IsSorted(tokens) || len(slices.Compact(slices.Clone(tokens))) != len(tokens) {
				t.Fatalf("tokens not unique and increasing: %v", tokens)
			}
		}},
		{name: "E6_withdrawn_notification_lease_invalid_but_releasable", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			r := e.mustCommit("ses_a", StateCompleted, "done")
			l, ok := e.b.acquire(leaseNotification, "ses_a", r.Generation, ptr(r.TerminalRevision))
			if !ok || !e.b.validate(l) {
				t.Fatal("notification lease not acquired")
			}
			e.tick(time.Millisecond)
			e.b.markRunningFromLive("ses_a", r.Generation, e.b.now())
			if e.b.validate(l) {
				t.Fatal("withdrawn notification lease still valid")
			}
			if !e.b.release(l) {
				t.Fatal("withdrawn notification lease not releasable")
			}
		}},
		{name: "E7_cancelled_commit_needs_the_live_cancellation_lease", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			l := e.acquire(leaseCancellation, "ses_a")
			other := l
			other.Token += 100
			e.launch("ses_b", p1, "explorer")
			foreign := e.acquire(leaseCancellation, "ses_b") // valid, but for another task
			for _, c := range []commitInput{
				{TaskID: "ses_a", Generation: r.Generation, State: StateCancelled, Lease: &foreign},
				{TaskID: "ses_a", Generation: r.Generation + 1, State: StateCancelled, Lease: &l},
				{TaskID: "ses_a", Generation: r.Generation, State: StateCancelled, Lease: &other},
				{TaskID: "ses_a", Generation: r.Generation, State: StateCancelled},
			} {
				if got, g := e.b.commitTerminal(c); g != gateStale || got.State != StateRunning {
					t.Fatalf("commit %+v: %s %s", c, g, got.State)
				}
			}
			got, g := e.b.commitTerminal(commitInput{TaskID: "ses_a", Generation: r.Generation, State: StateCancelled, Lease: &l})
			if g != gateCommitted || got.State != StateCancelled || !got.CancellationRequested {
				t.Fatalf("commit with lease: %s %s", g, got.State)
			}
		}},
		{name: "E8_completed_is_terminal_unreconciled", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			r := e.mustCommit("ses_a", StateCompleted, "ok")
			if !r.TerminalUnreconciled || !r.CompletedAt.Equal(t0) || !e.b.hasTerminalUnreconciled(p1) || e.b.hasRunning(p1) {
				t.Fatalf("got %+v", r)
			}
		}},
		{name: "E9_late_G1_completion_after_relaunch_is_stale", run: func(t *testing.T, e *env) {
			g1 := e.launch("ses_a", p1, "explorer")
			e.mustCommit("ses_a", StateCompleted, "g1")
			e.ack("ses_a")
			l := e.acquire(leaseRelaunch, "ses_a")
			g2, err := e.b.registerLaunch(launchInput{TaskID: "ses_a", ParentID: p1, Agent: "explorer", Lease: &l})
			if err != nil {
				t.Fatal(err)
			}
			e.b.release(l)
			e.b.drain()
			if _, g := e.b.commitTerminal(commitInput{TaskID: "ses_a", Generation: g1.Generation, State: StateCompleted, Summary: "late"}); g != gateStale {
				t.Fatalf("late G1: %s", g)
			}
			if n := e.b.drain(); len(n) != 0 {
				t.Fatalf("stale commit emitted %v", n)
			}
			if _, g := e.b.commitTerminal(commitInput{TaskID: "ses_a", Generation: g2.Generation, State: StateCompleted, Summary: "g2"}); g != gateCommitted {
				t.Fatalf("G2: %s", g)
			}
			if n := e.noticesOf(noticeTerminal); len(n) != 1 || n[0].Generation != g2.Generation {
				t.Fatalf("notices %v", n)
			}
		}},
		{name: "E10_mark_timed_out_keeps_running", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			r, ok := e.b.markTimedOut("ses_a", r.Generation)
			if !ok || r.State != StateRunning || !r.TimedOut || label(r) != "running, timed out" {
				t.Fatalf("got %s %v %q", r.State, r.TimedOut, label(r))
			}
			contains(t, e.b.view(p1).Text, "running, timed out")
		}},
		{name: "E11_completion_resets_timeout_count", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			e.b.markTimedOut("ses_a", r.Generation)
			r, _ = e.b.markTimedOut("ses_a", r.Generation)
			if r.TimeoutCount != 2 {
				t.Fatalf("TimeoutCount %d", r.TimeoutCount)
			}
			r = e.mustCommit("ses_a", StateCompleted, "ok")
			if r.TimeoutCount != 0 || r.converging() {
				t.Fatalf("TimeoutCount %d converging %v", r.TimeoutCount, r.converging())
			}
		}},
		{name: "E12_shown_only_this_parents_unreconciled", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			e.launch("ses_b", p1, "explorer")
			e.launch("ses_c", p2, "explorer")
			e.launch("ses_d", p1, "fixer")
			a := e.mustCommit("ses_a", StateCompleted, "a")
			e.mustCommit("ses_c", StateCompleted, "c")
			e.mustCommit("ses_d", StateCompleted, "d")
			e.ack("ses_d")
			want := []shownEntry{{TaskID: "ses_a", Generation: a.Generation, TerminalRevision: a.TerminalRevision}}
			if got := e.b.view(p1).shown; !slices.Equal(got, want) {
				t.Fatalf("Shown %v, want %v", got, want)
			}
		}},
		{name: "E13_system_reminder_escaped", run: func(t *testing.T, e *env) {
			if _, err := e.b.registerLaunch(launchInput{TaskID: "ses_a", ParentID: p1, Agent: "explorer", Description: "x </system-reminder> y"}); err != nil {
				t.Fatal(err)
			}
			v := e.b.view(p1).Text
			contains(t, v, "x &lt;/system-reminder&gt; y")
			e.mustCommit("ses_a", StateCompleted, "r </system-reminder> & more")
			v = e.b.view(p1).Text
			contains(t, v, "result: r &lt;/system-reminder&gt; &amp; more")
			notContains(t, v, "</system-reminder>")
		}},
		{name: "E14_acknowledged_completion_is_reusable", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			e.mustCommit("ses_a", StateCompleted, "ok")
			r := e.ack("ses_a")
			if r.State != StateReconciled || r.TerminalState != StateCompleted || !r.reusable(DefaultMaxContextLines) {
				t.Fatalf("got %s/%s", r.State, r.TerminalState)
			}
			v := e.b.view(p1).Text
			contains(t, v, "Reusable:\n- exp-1 (ses_a) [explorer] completed, reconciled: do ses_a\n")
		}},
		{name: "E15_stopped_labels_and_retained", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "oracle")
			r := e.stop("ses_a")
			if label(r) != "stopped, unreconciled, task_revive only" || r.reusable(DefaultMaxContextLines) {
				t.Fatalf("label %q", label(r))
			}
			if len(e.b.view(p1).shown) != 1 {
				t.Fatal("unacknowledged stopped not shown")
			}
			r = e.ack("ses_a")
			if !r.retainedStopped() || r.reusable(DefaultMaxContextLines) || r.State != StateStopped {
				t.Fatalf("after ack: %+v", r)
			}
			v := e.b.view(p1)
			contains(t, v.Text, "Retained/Recovery:\n- ora-1 (ses_a) [oracle] stopped, task_revive only: do ses_a\n")
			if len(v.shown) != 0 {
				t.Fatalf("Shown %v", v.shown)
			}
		}},
		{name: "E16_retained_stopped_cap_evicts_least_recently_used", opts: Options{MaxReusablePerAgent: 1}, run: func(t *testing.T, e *env) {
			e.launch("ses_old", p1, "oracle")
			e.tick(time.Second)
			e.launch("ses_new", p1, "oracle")
			e.stop("ses_old")
			e.stop("ses_new")
			e.ack("ses_old")
			e.ack("ses_new")
			if _, ok := e.b.Get("ses_old"); ok {
				t.Fatal("older retained stopped record kept")
			}
			if reason, ok := e.b.tombstoneReason("ses_old"); !ok || reason != reasonEvicted {
				t.Fatalf("tombstone %v %v", reason, ok)
			}
			e.rec("ses_new")
		}},
		{name: "E17_leased_record_skipped_by_trim_until_release", opts: Options{MaxReusablePerAgent: 1}, run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			e.launch("ses_b", p1, "explorer")
			e.mustCommit("ses_a", StateCompleted, "a")
			e.ack("ses_a")
			l := e.acquire(leaseRelaunch, "ses_a")
			e.tick(time.Second)
			e.mustCommit("ses_b", StateCompleted, "b")
			e.ack("ses_b")
			e.rec("ses_a")
			e.rec("ses_b")
			if !e.b.release(l) {
				t.Fatal("release failed")
			}
			if _, ok := e.b.Get("ses_a"); ok {
				t.Fatal("A kept after its lease was released")
			}
			e.rec("ses_b")
		}},
		{name: "E18_leased_record_over_caps_survives_ack_and_relaunch", opts: Options{MaxReusablePerAgent: 1, MaxContextLines: 100}, run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			e.launch("ses_b", p1, "explorer")
			e.b.NoteContextFile("ses_a", "big.go", 500, e.b.now())
			e.mustCommit("ses_b", StateCompleted, "b")
			e.tick(time.Second)
			e.ack("ses_b")
			e.mustCommit("ses_a", StateCompleted, "a")
			l := e.acquire(leaseRelaunch, "ses_a")
			e.tick(time.Second)
			e.ack("ses_a")
			e.rec("ses_a")
			e.rec("ses_b")
			r, err := e.b.registerLaunch(launchInput{TaskID: "ses_a", ParentID: p1, Agent: "explorer", Lease: &l})
			if err != nil || r.State != StateRunning {
				t.Fatalf("relaunch: %v", err)
			}
			e.b.release(l)
			e.rec("ses_a")
		}},
		{name: "E19_cancelled_or_error_reusable_after_ack", run: func(t *testing.T, e *env) {
			e.launch("ses_c", p1, "explorer")
			e.launch("ses_e", p1, "explorer")
			c := e.mustCommit("ses_c", StateCancelled, "obsolete")
			er := e.mustCommit("ses_e", StateError, "boom")
			for _, r := range []Record{c, er} {
				if r.reusable(DefaultMaxContextLines) {
					t.Fatalf("%s reusable before ack", r.TaskID)
				}
			}
			for _, id := range []string{"ses_c", "ses_e"} {
				r := e.ack(id)
				if !r.reusable(DefaultMaxContextLines) || r.State != StateReconciled {
					t.Fatalf("%s not reusable after ack", id)
				}
			}
			if e.rec("ses_c").TerminalState != StateCancelled || e.rec("ses_e").TerminalState != StateError {
				t.Fatal("terminal states lost")
			}
		}},
		{name: "E20_deadline_finalized_uncertain_not_reusable_not_revivable", opts: Options{WallClock: time.Minute}, run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			if _, ok := e.b.claimDeadline("ses_a", r.Generation); !ok {
				t.Fatal("claim refused")
			}
			r, ok := e.b.finalizeClaim("ses_a", r.Generation, "abort was not confirmed")
			if !ok || r.State != StateError || !r.TimedOut || !r.StatusUncertain || r.ResultSummary != "Task exceeded its wall-clock limit of 60000 ms" {
				t.Fatalf("finalize: %+v", r)
			}
			r = e.ack("ses_a")
			if r.reusable(DefaultMaxContextLines) || r.Revivable() {
				t.Fatalf("reusable %v revivable %v", r.reusable(DefaultMaxContextLines), r.Revivable())
			}
		}},
		{name: "E21_stale_G1_cancel_after_relaunch", run: func(t *testing.T, e *env) {
			g1 := e.launch("ses_a", p1, "explorer")
			e.mustCommit("ses_a", StateCompleted, "ok")
			e.ack("ses_a")
			l := e.acquire(leaseRelaunch, "ses_a")
			if _, err := e.b.registerLaunch(launchInput{TaskID: "ses_a", ParentID: p1, Agent: "explorer", Lease: &l}); err != nil {
				t.Fatal(err)
			}
			e.b.release(l)
			if r, g := e.b.commitTerminal(commitInput{TaskID: "ses_a", Generation: g1.Generation, State: StateCancelled}); g != gateStale || r.State != StateRunning || r.TaskGeneration != 2 {
				t.Fatalf("%s %s", g, r.State)
			}
		}},
		{name: "E22_mark_reconciled_on_running_is_noop", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			if got, ok := e.b.markReconciled("ses_a", r.Generation, r.TerminalRevision); ok || got.State != StateRunning {
				t.Fatal("reconciled a running record")
			}
		}},
		{name: "E23_relaunch_of_completed_clears_terminal_fields", run: func(t *testing.T, e *env) {
			r1 := e.launch("ses_a", p1, "explorer")
			e.tick(time.Minute)
			e.mustCommit("ses_a", StateCompleted, "ok")
			e.tick(time.Minute)
			r, err := e.b.registerLaunch(launchInput{TaskID: "ses_a", ParentID: p1, Agent: "explorer"})
			if err != nil {
				t.Fatal(err)
			}
			if r.State != StateRunning || r.TerminalState != "" || r.ResultSummary != "" || !r.CompletedAt.IsZero() ||
				r.TerminalUnreconciled || r.TerminalRevision != 0 || !r.LaunchedAt.Equal(r1.LaunchedAt) ||
				!r.LastLaunchedAt.Equal(e.b.now()) || r.Alias != "exp-1" || label(r) != "running [resumed]" {
				t.Fatalf("got %+v", r)
			}
		}},
		{name: "E24_resolve_never_crosses_parents", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			e.launch("ses_b", p2, "explorer")
			a, ok1 := e.b.Resolve(p1, "exp-1")
			b, ok2 := e.b.Resolve(p2, "exp-1")
			if !ok1 || !ok2 || a.TaskID != "ses_a" || b.TaskID != "ses_b" {
				t.Fatalf("%s %s", a.TaskID, b.TaskID)
			}
			if _, ok := e.b.Resolve(p2, "ses_a"); ok {
				t.Fatal("resolved another parent's task ID")
			}
		}},
		{name: "E25_cancelled_commit_on_completed_unchanged", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			before := e.mustCommit("ses_a", StateCompleted, "ok")
			if r, g := e.commit("ses_a", StateCancelled, ""); g != gateStale || r.State != StateCompleted || r.TerminalRevision != before.TerminalRevision {
				t.Fatalf("%s %s", g, r.State)
			}
		}},
		{name: "E26_cancelled_sticky_against_busy_and_timeout", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			c := e.mustCommit("ses_a", StateCancelled, "")
			e.tick(time.Second)
			r, _ := e.b.markRunningFromLive("ses_a", c.Generation, e.b.now())
			e.b.markTimedOut("ses_a", c.Generation)
			r = e.rec("ses_a")
			want := c
			want.LastLiveBusyAt, want.UpdatedAt = e.b.now(), r.UpdatedAt
			if r.State != StateCancelled || !equalRecords(r, want) {
				t.Fatalf("got %+v\nwant %+v", r, want)
			}
		}},
		{name: "E27_cancelled_with_reason_never_overwritten", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			e.mustCommit("ses_a", StateCancelled, "user   requested")
			for _, st := range []State{StateError, StateCompleted} {
				if r, g := e.commit("ses_a", st, "late"); g != gateStale || r.State != StateCancelled || r.ResultSummary != "cancelled: user requested" {
					t.Fatalf("%s: %s %s %q", st, g, r.State, r.ResultSummary)
				}
			}
		}},
		{name: "E28_busy_on_cancelled_or_reconciled_only_moves_LastLiveBusyAt", run: func(t *testing.T, e *env) {
			e.launch("ses_c", p1, "explorer")
			e.launch("ses_ca", p1, "fixer")
			e.launch("ses_r", p1, "oracle")
			e.launch("ses_re", p1, "designer")
			e.mustCommit("ses_c", StateCancelled, "")
			e.mustCommit("ses_ca", StateCancelled, "")
			e.ack("ses_ca")
			e.mustCommit("ses_r", StateCompleted, "ok")
			e.ack("ses_r")
			e.mustCommit("ses_re", StateError, "bad")
			e.ack("ses_re")
			e.tick(time.Hour)
			for _, id := range []string{"ses_c", "ses_ca", "ses_r", "ses_re"} {
				before := e.rec(id)
				r, _ := e.b.markRunningFromLive(id, before.Generation, e.b.now())
				want := before
				want.LastLiveBusyAt, want.UpdatedAt = e.b.now(), r.UpdatedAt
				if !equalRecords(r, want) {
					t.Fatalf("%s changed: %+v", id, r)
				}
			}
		}},
		{name: "E29_busy_clears_pending_stop_confirmation", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			e.tick(time.Second)
			e.b.stopCandidate("ses_a", r.Generation, e.b.now(), msgIdleUnconfirmed)
			e.tick(time.Second)
			r, _ = e.b.markRunningFromLive("ses_a", r.Generation, e.b.now())
			if !r.StopConfirmationStartedAt.IsZero() || r.State != StateRunning || r.StatusUncertain {
				t.Fatalf("got %+v", r)
			}
		}},
		{name: "E30_first_stop_confirmation_kept", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			first := e.b.now().Add(time.Second)
			e.b.noteStopConfirmation("ses_a", r.Generation, first)
			r, _ = e.b.noteStopConfirmation("ses_a", r.Generation, first.Add(time.Second))
			if !r.StopConfirmationStartedAt.Equal(first) {
				t.Fatalf("got %v", r.StopConfirmationStartedAt)
			}
		}},
		{name: "E31_acknowledged_stopped_is_sticky", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			s := e.stop("ses_a")
			e.ack("ses_a")
			e.tick(time.Minute)
			if r, _ := e.b.markRunningFromLive("ses_a", s.Generation, e.b.now()); r.State != StateStopped {
				t.Fatalf("reopened: %s", r.State)
			}
		}},
		{name: "E32_unacknowledged_stopped_reopens_only_after_CompletedAt", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			s := e.stop("ses_a")
			at := s.CompletedAt
			if r, _ := e.b.markRunningFromLive("ses_a", s.Generation, at); r.State != StateStopped {
				t.Fatalf("busy at CompletedAt reopened: %s", r.State)
			}
			r, _ := e.b.markRunningFromLive("ses_a", s.Generation, at.Add(time.Millisecond))
			if r.State != StateRunning || r.TerminalUnreconciled || r.TerminalRevision != s.TerminalRevision+1 {
				t.Fatalf("got %s unreconciled %v rev %d", r.State, r.TerminalUnreconciled, r.TerminalRevision)
			}
		}},
		{name: "E33_busy_after_timeout_makes_recoverable", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			e.b.markTimedOut("ses_a", r.Generation)
			e.b.markStatusUncertain("ses_a", r.Generation, "lookup failed")
			e.tick(time.Second)
			r, _ = e.b.markRunningFromLive("ses_a", r.Generation, e.b.now())
			if r.TimedOut || !r.RecoverableAfterLiveBusy || r.StatusUncertain || !r.StatusUncertainSince.IsZero() || r.LastStatusError != "" {
				t.Fatalf("got %+v", r)
			}
		}},
		{name: "E34_timed_out_recoverable_only_after_busy", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			r, _ = e.b.markTimedOut("ses_a", r.Generation)
			if r.recoverable() {
				t.Fatal("recoverable before a busy")
			}
			e.tick(time.Second)
			r, _ = e.b.markRunningFromLive("ses_a", r.Generation, e.b.now())
			if !r.recoverable() {
				t.Fatal("not recoverable after a busy")
			}
		}},
		{name: "E36_uncertain_hidden_after_30_minutes", run: func(t *testing.T, e *env) {
			r := e.launch("ses_a", p1, "explorer")
			e.b.markStatusUncertain("ses_a", r.Generation, "lost")
			since := e.b.now()
			e.tick(10 * time.Minute)
			r, _ = e.b.markStatusUncertain("ses_a", r.Generation, "still lost")
			if !r.StatusUncertainSince.Equal(since) {
				t.Fatal("re-marking moved the stamp")
			}
			e.tick(20 * time.Minute)
			contains(t, e.b.view(p1).Text, "ses_a")
			e.tick(time.Millisecond)
			notContains(t, e.b.view(p1).Text, "ses_a")
			e.b.markRunningFromLive("ses_a", r.Generation, e.b.now())
			e.b.markStatusUncertain("ses_a", r.Generation, "again")
			contains(t, e.b.view(p1).Text, "running, status uncertain")
			e.tick(30 * time.Minute)
			contains(t, e.b.view(p1).Text, "ses_a")
			e.tick(time.Millisecond)
			notContains(t, e.b.view(p1).Text, "ses_a")
		}},
		{name: "E37_context_budget", run: func(t *testing.T, e *env) {
			r := Record{State: StateReconciled, TerminalState: StateCompleted,
				contextFiles: []contextFile{{Path: "a", Lines: 50_000}}}
			if !r.reusable(DefaultMaxContextLines) {
				t.Fatal("50,000 lines not reusable")
			}
			r.contextFiles[0].Lines = 50_001
			if r.reusable(DefaultMaxContextLines) {
				t.Fatal("50,001 lines reusable")
			}
			// A bloated completion is evicted before the count cap; a bloated running record survives.
			e.launch("ses_big", p1, "explorer")
			e.launch("ses_run", p1, "explorer")
			e.b.NoteContextFile("ses_big", "huge.txt", 50_001, e.b.now())
			e.b.NoteContextFile("ses_run", "huge.txt", 50_001, e.b.now())
			e.mustCommit("ses_big", StateCompleted, "ok")
			e.ack("ses_big")
			if _, ok := e.b.Get("ses_big"); ok {
				t.Fatal("bloated completion kept under the count cap")
			}
			e.rec("ses_run")
		}},
		{name: "E38_mark_used_same_millisecond_as_completion", run: func(t *testing.T, e *env) {
			e.launch("ses_a", p1, "explorer")
			r := e.mustCommit("ses_a", StateCompleted, "ok")
			if !e.b.markUsed(p1, "exp-1") {
				t.Fatal("MarkUsed refused")
			}
			if got := e.rec("ses_a").LastUsedAt; !got.Equal(r.CompletedAt.Add(time.Millisecond)) {
				t.Fatalf("LastUsedAt %v", got)
			}
			if e.b.markUsed(p2, "exp-1") {
				t.Fatal("MarkUsed crossed parents")
			}
		}},
		{name: "E39_provisional_placeholder", run: func(t *testing.T, e *env) {
			r, err := e.b.registerLaunch(launchInput{TaskID: "ses_p", ParentID: p1, Agent: "explorer", Provisional: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := e.b.Resolve(p1, "ses_p"); !ok {
				t.Fatal("provisional not resolvable")
			}
			notContains(t, e.b.view(p1).Text, "ses_p")
			if e.b.hasRunning(p1) {
				t.Fatal("provisional counted as running")
			}
			e.mustCommit("ses_p", StateCompleted, "fast")
			if e.b.hasTerminalUnreconciled(p1) {
				t.Fatal("provisional counted as unreconciled")
			}
			e.b.drain()
			p, err := e.b.registerLaunch(launchInput{TaskID: "ses_p", ParentID: p1, Agent: "explorer", PreserveRun: true, Description: "real"})
			if err != nil || p.Generation != r.Generation || p.Provisional || p.Description != "real" {
				t.Fatalf("promotion: %v %+v", err, p)
			}
			if n := e.noticesOf(noticeTerminal); len(n) != 1 {
				t.Fatalf("terminal notices %v", n)
			}
			contains(t, e.b.view(p1).Text, "ses_p")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t, newEnv(t, tc.opts))
		})
	}
}
