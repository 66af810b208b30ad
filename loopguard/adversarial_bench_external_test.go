package loopguard_test

import (
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/loopguard"
)

// Outputs a model or a misbehaving task tool can produce to make output parsing slow.
var (
	// statusParens is 700 KB of "state:(" after a valid state line.
	statusParens = "task_id: t1\nstate: running\n" + strings.Repeat("state:(", 100_000)
	// taskWords is 1 MB of "task ".
	taskWords = strings.Repeat("task ", 200_000)
)

// BenchmarkAdversarial measures one task_status Before+After on outputs built to make a
// naive parser quadratic.
func BenchmarkAdversarial(b *testing.B) {
	for _, tc := range []struct{ name, out string }{
		{"state-paren-700KB", statusParens},
		{"task-words-1MB", taskWords},
	} {
		b.Run(tc.name, func(b *testing.B) {
			g := mustGuard(b)
			b.SetBytes(int64(len(tc.out)))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				c := loopguard.Call{Session: "s1", CallID: "c" + strconv.Itoa(i), Tool: "task_status", Args: benchStatusArgs}
				if err := g.Before(c); err != nil {
					b.Fatal(err)
				}
				mustAfter(b, g, c, loopguard.TextOutput(tc.out))
			}
		})
	}
}

// retained returns the live heap after a collection.
func retained() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// feedLarge feeds one session of g eight 16 MiB task_status outputs for eight tasks, or
// (hugeID) one supervision call whose arguments carry a 32 MiB task id (4 MiB under -race,
// still 16,000 times what the guard keeps of an id). The inputs are built inside and
// dropped on return, so whatever of them stays reachable is kept by the guard.
func feedLarge(t testing.TB, g *loopguard.Guard, hugeID bool) {
	if hugeID {
		size := 32 << 20
		if raceEnabled {
			size = 4 << 20
		}
		args := json.RawMessage(`{"task_id":"` + strings.Repeat("x", size) + `"}`)
		c := loopguard.Call{Session: "s1", CallID: "huge", Tool: "task_status", Args: args}
		if err := g.Before(c); err != nil {
			t.Fatal(err)
		}
		mustAfter(t, g, c, loopguard.TextOutput("state: running\n"))
		return
	}
	const size = 16 << 20
	for i := range 8 {
		head := "task_id: t" + strconv.Itoa(i) + "\nstate: running\n"
		out := head + strings.Repeat("p", size-len(head))
		c := loopguard.Call{Session: "s1", CallID: "c" + strconv.Itoa(i), Tool: "task_status", Args: benchStatusArgs}
		if err := g.Before(c); err != nil {
			t.Fatal(err)
		}
		mustAfter(t, g, c, loopguard.TextOutput(out))
	}
}

// BenchmarkRetention reports the heap a guard keeps alive after large task outputs and a
// huge task id (retained-B), measured after a garbage collection.
func BenchmarkRetention(b *testing.B) {
	for _, tc := range []struct {
		name string
		huge bool
	}{{"task-status-8x16MiB", false}, {"task-status-id-32MiB", true}} {
		b.Run(tc.name, func(b *testing.B) {
			var sum uint64
			n := 0
			for b.Loop() {
				base := retained()
				g := mustGuard(b)
				feedLarge(b, g, tc.huge)
				after := retained()
				runtime.KeepAlive(g)
				if after > base {
					sum += after - base
				}
				n++
			}
			b.ReportMetric(float64(sum)/float64(n), "retained-B")
		})
	}
}
