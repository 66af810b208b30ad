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
		var sc scratch
		b.SetBytes(int64(len(args)))
		b.ReportAllocs()
		for b.Loop() {
			sc.callKey("read", args)
		}
	})
	b.Run("canonical-200B", func(b *testing.B) {
		var p canonParser
		buf := make([]byte, 0, 512)
		b.SetBytes(int64(len(args)))
		b.ReportAllocs()
		for b.Loop() {
			buf = p.canonical(buf[:0], args)
		}
	})
	b.Run("canonical-200B-slow", func(b *testing.B) {
		p := canonParser{slow: true}
		buf := make([]byte, 0, 512)
		b.SetBytes(int64(len(args)))
		b.ReportAllocs()
		for b.Loop() {
			buf = p.canonical(buf[:0], args)
		}
	})
	b.Run("output-key-4KiB", func(b *testing.B) {
		var sc scratch
		out := TextOutput(strings.Repeat("const value = compute(42) // keep\n", 121)[:4096])
		b.SetBytes(int64(len(out.Text)))
		b.ReportAllocs()
		for b.Loop() {
			sc.outputKey("read", out)
		}
	})
}
