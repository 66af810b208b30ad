package loopguard_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/harnesskit/harnesskit/loopguard"
	"pgregory.net/rapid"
)

// op is one ordinary call of a generated sequence.
type op struct {
	tool  string
	shape int // index into modelShapes
	out   int // output text index
}

// outcome is what happened to one call: refused with its count, or admitted with runs and
// whether a notice was appended.
type outcome struct {
	refused bool
	runs    int
	notice  bool
}

var opGen = rapid.Custom(func(t *rapid.T) op {
	return op{
		tool:  rapid.SampledFrom([]string{"read", "grep", "bash"}).Draw(t, "tool"),
		shape: rapid.IntRange(0, 1).Draw(t, "shape"),
		out:   rapid.IntRange(0, 2).Draw(t, "out"),
	}
})

// repetitive makes repeats likely: each op copies the previous one with probability 3/4.
func repetitive(t *rapid.T, label string, n int) []op {
	ops := make([]op, 0, n)
	for i := range n {
		if i > 0 && rapid.IntRange(0, 3).Draw(t, label+"-repeat") > 0 {
			ops = append(ops, ops[i-1])
			continue
		}
		ops = append(ops, opGen.Draw(t, label))
	}
	return ops
}

type runner struct {
	g  *loopguard.Guard
	id int
}

func (r *runner) run(session string, o op, perm int) outcome {
	r.id++
	args := modelShapes[o.shape]
	c := loopguard.Call{Session: session, CallID: fmt.Sprint("c", r.id), Tool: o.tool, Args: json.RawMessage(args[perm%len(args)])}
	if err := r.g.Before(c); err != nil {
		re := err.(*loopguard.RefusedError)
		return outcome{refused: true, runs: re.Runs}
	}
	v, err := r.g.After(c, loopguard.TextOutput(fmt.Sprint("output ", o.out)))
	if err != nil {
		panic(err) // the runner always sets Session and CallID
	}
	return outcome{runs: v.Runs, notice: v.Notice != ""}
}

func newGuard(t interface{ Fatal(...any) }, opts ...loopguard.Option) *runner {
	g, err := loopguard.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return &runner{g: g}
}

func runAll(r *runner, session string, ops []op) []outcome {
	var out []outcome
	for _, o := range ops {
		out = append(out, r.run(session, o, 0))
	}
	return out
}

// Property 4 (and the "a call with a new result never counts toward a block"): a
// sequence in which every output differs from the previous one never gets a notice or a
// refusal, and every run count is 1.
func TestPropProgressResets(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := newGuard(t)
		ops := rapid.SliceOfN(opGen, 1, 40).Draw(t, "ops")
		for i := range ops {
			ops[i].out = i // each result new
		}
		for i, o := range runAll(r, "s1", ops) {
			if o.refused || o.notice || o.runs != 1 {
				t.Fatalf("call %d (%+v): %+v", i, ops[i], o)
			}
		}
	})
}

// Property 5: k identical calls to a block tool get notices exactly on results
// WarnAt … min(k, BlockAt) and refusals on every call after the BlockAt-th.
func TestPropExactCounting(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		warn := rapid.IntRange(1, 6).Draw(t, "warnAt")
		block := rapid.IntRange(warn, 8).Draw(t, "blockAt")
		k := rapid.IntRange(1, 15).Draw(t, "k")
		r := newGuard(t, loopguard.WithWarnAt(warn), loopguard.WithBlockAt(block))
		o := op{tool: rapid.SampledFrom([]string{"read", "grep", "glob"}).Draw(t, "tool")}
		for i := 1; i <= k; i++ {
			got := r.run("s1", o, i)
			want := outcome{runs: i, notice: i >= warn}
			if i > block {
				want = outcome{refused: true, runs: block}
			}
			if got != want {
				t.Fatalf("call %d (warn %d block %d): %+v, want %+v", i, warn, block, got, want)
			}
		}
	})
}

// Property 6 (and "exempt tools are never warned or refused"): inserting exempt,
// supervision or wait calls anywhere does not change any ordinary call's outcome; exempt
// calls themselves are never refused and their output is never touched.
func TestPropTransparency(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ops := repetitive(t, "op", rapid.IntRange(1, 30).Draw(t, "n"))
		want := runAll(newGuard(t), "s1", ops)
		r := newGuard(t)
		var got []outcome
		for i, o := range ops {
			for range rapid.IntRange(0, 2).Draw(t, "extras") {
				tool := rapid.SampledFrom([]string{"task", "task_cancel", "task_message", "task_revive", "task_status", "task_result", "wait_for_user", "wait_for_background_tasks"}).Draw(t, "extra")
				r.id++
				c := loopguard.Call{Session: "s1", CallID: fmt.Sprint("x", r.id), Tool: tool, Args: json.RawMessage(`{"task_id":"t1"}`)}
				err := r.g.Before(c)
				exempt := tool == "task" || tool == "task_cancel" || tool == "task_message" || tool == "task_revive"
				if err != nil {
					if exempt || tool == "task_status" || tool == "task_result" {
						t.Fatalf("before ordinary call %d: %s refused: %v", i, tool, err)
					}
					continue
				}
				out := "task_id: t1\nstate: running"
				v := mustAfter(t, r.g, c, loopguard.TextOutput(out))
				if exempt && (v.Output.Text != out || v.Notice != "" || v.Stream != loopguard.StreamNone) {
					t.Fatalf("exempt %s annotated or counted: %+v", tool, v)
				}
			}
			got = append(got, r.run("s1", o, 0))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("outcomes with extra calls %v, alone %v", got, want)
		}
	})
}

// Property 7: interleaving two sessions gives each the outcomes it has alone.
func TestPropIsolation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := repetitive(t, "a", rapid.IntRange(0, 25).Draw(t, "na"))
		b := repetitive(t, "b", rapid.IntRange(0, 25).Draw(t, "nb"))
		wantA, wantB := runAll(newGuard(t), "s1", a), runAll(newGuard(t), "s2", b)
		r := newGuard(t)
		var gotA, gotB []outcome
		for len(gotA) < len(a) || len(gotB) < len(b) {
			if len(gotB) == len(b) || (len(gotA) < len(a) && rapid.Bool().Draw(t, "pickA")) {
				gotA = append(gotA, r.run("s1", a[len(gotA)], 0))
			} else {
				gotB = append(gotB, r.run("s2", b[len(gotB)], 0))
			}
		}
		if !slices.Equal(gotA, wantA) || !slices.Equal(gotB, wantB) {
			t.Fatalf("interleaved A %v B %v; alone A %v B %v", gotA, gotB, wantA, wantB)
		}
	})
}

// Property 8: permuting object keys in the arguments never changes an outcome.
func TestPropKeyOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ops := repetitive(t, "op", rapid.IntRange(1, 30).Draw(t, "n"))
		want := runAll(newGuard(t), "s1", ops)
		r := newGuard(t)
		for i, o := range ops {
			if got := r.run("s1", o, rapid.IntRange(0, 2).Draw(t, "perm")); got != want[i] {
				t.Fatalf("call %d with permuted keys: %+v, want %+v", i, got, want[i])
			}
		}
	})
}

// The overlap property: k identical calls admitted together and completed in any
// order, each with one of two results, never count more than the identical results that
// have come back, and no admitted call is refused afterwards.
func TestPropOverlapCompletions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(1, 12).Draw(t, "k")
		g := newGuard(t).g
		calls := make([]loopguard.Call, k)
		for i := range calls {
			calls[i] = loopguard.Call{Session: "s1", CallID: fmt.Sprint("c", i), Tool: "read", Args: json.RawMessage(aTS)}
			if err := g.Before(calls[i]); err != nil {
				t.Fatalf("overlapping Before %d refused: %v", i, err)
			}
		}
		order := rapid.Permutation(calls).Draw(t, "order")
		completed := map[int]int{} // output → completed results with that output
		for i, c := range order {
			out := rapid.IntRange(0, 1).Draw(t, "out")
			completed[out]++
			v := mustAfter(t, g, c, loopguard.TextOutput(fmt.Sprint("result ", out)))
			if v.Stream != loopguard.StreamLoop || v.Runs < 1 || v.Runs > completed[out] {
				t.Fatalf("completion %d: runs %d, but only %d identical results completed", i, v.Runs, completed[out])
			}
		}
	})
}

// Property 10: Len ≤ MaxSessions, pending ≤ MaxPending and tasks ≤ MaxTasks for any
// sequence, with small bounds so they are reached.
func TestPropBounds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		maxS := rapid.IntRange(1, 8).Draw(t, "maxSessions")
		maxP := rapid.IntRange(1, 5).Draw(t, "maxPending")
		maxT := rapid.IntRange(1, 4).Draw(t, "maxTasks")
		g := newGuard(t, loopguard.WithMaxSessions(maxS), loopguard.WithMaxPending(maxP), loopguard.WithMaxTasks(maxT)).g
		for i := range rapid.IntRange(1, 200).Draw(t, "steps") {
			s := fmt.Sprint("s", rapid.IntRange(0, 12).Draw(t, "session"))
			c := loopguard.Call{Session: s, CallID: fmt.Sprint("c", i), Tool: rapid.SampledFrom([]string{"read", "task_status", "wait_for_user"}).Draw(t, "tool")}
			if g.Before(c) == nil && rapid.Bool().Draw(t, "complete") {
				mustAfter(t, g, c, loopguard.TextOutput(fmt.Sprintf("task_id: t%d\nstate: running", rapid.IntRange(0, 9).Draw(t, "task"))))
			}
			if g.Len() > maxS {
				t.Fatalf("Len %d > %d", g.Len(), maxS)
			}
			if st, ok := g.State(s); ok && (st.Pending > maxP || len(st.Supervision) > maxT) {
				t.Fatalf("session %s: pending %d (max %d), tasks %d (max %d)", s, st.Pending, maxP, len(st.Supervision), maxT)
			}
		}
	})
}

// The memory property: 100,000 distinct sessions through a default guard keep at
// most 512 records, and the heap after the run stays within a few MiB of where it started.
// The rapid property draws the number of sessions (up to 5,000, so the 100 checks stay
// quick), whether calls complete and the bound; the second sub-test always runs the full
// 100,000 sessions.
func TestPropMemoryBounded(t *testing.T) {
	check := func(t interface {
		Fatal(...any)
		Fatalf(string, ...any)
	}, sessions, maxSessions int, complete bool) {
		var before, after runtime.MemStats
		g := newGuard(t, loopguard.WithMaxSessions(maxSessions)).g
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range sessions {
			c := loopguard.Call{Session: "session-" + strconv.Itoa(i), CallID: "c1", Tool: "read", Args: json.RawMessage(aTS)}
			if g.Before(c) == nil && complete {
				mustAfter(t, g, c, loopguard.TextOutput(aText))
			}
			if g.Len() > maxSessions {
				t.Fatalf("Len %d > %d", g.Len(), maxSessions)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if grow := int64(after.HeapAlloc) - int64(before.HeapAlloc); grow > 8<<20 {
			t.Fatalf("heap grew by %d bytes for %d sessions (bound %d)", grow, sessions, maxSessions)
		}
		runtime.KeepAlive(g)
	}
	t.Run("rapid", rapid.MakeCheck(func(t *rapid.T) {
		check(t, rapid.IntRange(1, 2_000).Draw(t, "sessions"), rapid.IntRange(1, loopguard.DefaultMaxSessions).Draw(t, "maxSessions"), rapid.Bool().Draw(t, "complete"))
	}))
	t.Run("many_sessions_default_bound", func(t *testing.T) {
		n := 100_000
		if raceEnabled {
			n = 20_000 // still 39 times the bound; the race detector makes each call ~10x slower
		}
		check(t, n, loopguard.DefaultMaxSessions, true)
	})
}

// TestConcurrentHammer runs 64 goroutines against one Guard (run it with -race): every
// call is admitted or refused cleanly, and each goroutine's private session ends with the
// count a single-threaded run gives.
func TestConcurrentHammer(t *testing.T) {
	g, err := loopguard.New(loopguard.WithMaxSessions(40))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 64 {
		wg.Go(func() {
			shared := "shared"
			own := fmt.Sprint("own-", w)
			for i := range 200 {
				c := loopguard.Call{Session: shared, CallID: fmt.Sprint(w, "-", i), Tool: "read", Args: json.RawMessage(aTS)}
				if g.Before(c) == nil {
					mustAfter(t, g, c, loopguard.TextOutput(aText))
				}
				g.UserMessage(shared, fmt.Sprint("m", i%3), i%2 == 0)
				g.State(shared)
				g.Len()
				if i%50 == 0 {
					g.EndTurn(shared)
				}
			}
			// A private session: 3 identical reads end at run 3 unless evicted meanwhile.
			for i := range 3 {
				c := loopguard.Call{Session: own, CallID: fmt.Sprint("own", i), Tool: "read", Args: json.RawMessage(aTS)}
				if err := g.Before(c); err != nil {
					errs <- err
					return
				}
				if v := mustAfter(t, g, c, loopguard.TextOutput(aText)); v.Runs > i+1 {
					errs <- fmt.Errorf("%s: run %d after %d calls", own, v.Runs, i+1)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if g.Len() > 40 {
		t.Errorf("Len %d > 40", g.Len())
	}
}
