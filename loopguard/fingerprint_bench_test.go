package loopguard

import (
	"strings"
	"testing"
)

// The parts of BenchmarkBeforeAfter/typical-200B-args-4KiB-output, measured alone so that
// a change to one of them is not lost in the noise of the whole pair.
func BenchmarkFingerprint(b *testing.B) {
	args := []byte(keyCases[0].args) // the same 200-byte object as the external benchmarks
	b.Run("call-key-200B", func(b *testing.B) {
		b.SetBytes(int64(len(args)))
		b.ReportAllocs()
		for b.Loop() {
			callKey("read", args)
		}
	})
	b.Run("canonical-200B", func(b *testing.B) {
		buf := make([]byte, 0, 512)
		b.SetBytes(int64(len(args)))
		b.ReportAllocs()
		for b.Loop() {
			buf = Canonical(buf[:0], args)
		}
	})
	b.Run("output-key-4KiB", func(b *testing.B) {
		out := TextOutput(strings.Repeat("const value = compute(42) // keep\n", 121)[:4096])
		b.SetBytes(int64(len(out.Text)))
		b.ReportAllocs()
		for b.Loop() {
			outputKey("read", out)
		}
	})
}

// BenchmarkReadStatus is the supervision reader alone on outputs built to make a naive
// reader quadratic (E61: 700 KB of "state:(" must parse in well under 10 ms).
func BenchmarkReadStatus(b *testing.B) {
	for _, tc := range []struct{ name, out string }{
		{"state-paren-700KB", "task_id: t1\nstate: running " + strings.Repeat("state:(", 100_000)},
		{"task-words-1MB", strings.Repeat("task ", 200_000)},
		{"task-paren-1MB", strings.Repeat("task (", 170_000)},
		{"typical-4KiB", "Task explorer (bg_7f3a9c) — background task\n" + strings.Repeat("progress: scanning src/components and collecting matches\n", 70) + "state: running\n"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(min(len(tc.out), maxParsed)))
			b.ReportAllocs()
			for b.Loop() {
				readStatus(tc.out)
			}
		})
	}
}
