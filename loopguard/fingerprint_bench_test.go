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
