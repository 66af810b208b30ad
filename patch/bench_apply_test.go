package patch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/wfs"
)

// Benchmarks of spec §8 for the applier. Run with -benchmem; rescue benchmarks also report the
// work units spent per chunk, BenchmarkApply the CPU time per apply (cpu-ns/op).

func benchApply(b *testing.B, loose bool) {
	content, text := bigCase(100_000, 1000, loose)
	m, a := itApplier(b, map[string]string{"big.txt": string(content)})
	ctx := context.Background()
	var cpu int64
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		if err := m.WriteFile(itRoot+"/big.txt", content, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c := testenv.CPUNanos()
		pl, err := a.Plan(ctx, text)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.Commit(ctx, pl); err != nil {
			b.Fatal(err)
		}
		cpu += testenv.CPUNanos() - c
	}
	reportCPU(b, cpu)
}

// reportCPU reports the CPU time of the timed part as cpu-ns/op (see testenv.CPUNanos: on a
// shared machine compare this, with benchstat, rather than ns/op).
func reportCPU(b *testing.B, cpu int64) {
	if cpu > 0 {
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	}
}

func BenchmarkApply(b *testing.B) {
	b.Run("1000chunks-100klines", func(b *testing.B) { benchApply(b, false) })
	b.Run("1000chunks-100klines-loose", func(b *testing.B) { benchApply(b, true) })
	b.Run("1000chunks-100klines-compat", func(b *testing.B) { benchApplyCompat(b, 1) })
	b.Run("1000chunks-100klines-compat-10sections", func(b *testing.B) { benchApplyCompat(b, 10) })
}

// benchApplyCompat applies the 1,000-chunk patch in Codex-compatibility (non-atomic) mode,
// its chunks split into the given number of sections on the one file.
func benchApplyCompat(b *testing.B, sections int) {
	content, text := bigCase(100_000, 1000, false)
	if sections > 1 {
		text = splitSections(text, "*** Update File: big.txt\n", 1000/sections)
	}
	m, a := itApplier(b, map[string]string{"big.txt": string(content)}, WithCodexCompat())
	ctx := context.Background()
	var cpu int64
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		if err := m.WriteFile(itRoot+"/big.txt", content, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c := testenv.CPUNanos()
		if _, err := a.Apply(ctx, text); err != nil {
			b.Fatal(err)
		}
		cpu += testenv.CPUNanos() - c
	}
	reportCPU(b, cpu)
}

// splitSections repeats header before every per-th "@@" chunk of text's one section, so the
// chunks become sections of the same file.
func splitSections(text, header string, per int) string {
	parts := strings.SplitAfter(text, header)
	chunks := strings.Split(parts[1], "@@\n")
	var out strings.Builder
	out.WriteString(parts[0])
	for i, c := range chunks[1:] {
		if i > 0 && i%per == 0 {
			out.WriteString(header)
		}
		out.WriteString("@@\n" + c)
	}
	return out.String()
}

func BenchmarkLocate(b *testing.B) {
	b.Run("exact-worst", func(b *testing.B) {
		var fb, pb strings.Builder
		for r := 0; r < 2000; r++ {
			for i := 1; i < 50; i++ {
				fmt.Fprintf(&fb, "L%d\n", i)
			}
			fb.WriteString("decoy\n")
		}
		for i := 1; i <= 50; i++ {
			fmt.Fprintf(&fb, "L%d\n", i)
		}
		pb.WriteString("*** Begin Patch\n*** Update File: f.txt\n@@\n")
		for i := 1; i < 50; i++ {
			fmt.Fprintf(&pb, " L%d\n", i)
		}
		pb.WriteString("-L50\n+L50!\n*** End Patch\n")
		_, a := itApplier(b, map[string]string{"f.txt": fb.String()})
		text := pb.String()
		b.ReportAllocs()
		for b.Loop() {
			pl, err := a.Plan(context.Background(), text)
			if err != nil {
				b.Fatal(err)
			}
			if pl.Report[0].Start != 2000*50+1 {
				b.Fatalf("placed at %d", pl.Report[0].Start)
			}
		}
	})
}

func BenchmarkDiagnostics(b *testing.B) {
	b.Run("notfound-100klines", func(b *testing.B) {
		content, _ := bigCase(100_000, 1000, false)
		_, a := itApplier(b, map[string]string{"big.txt": string(content)},
			rescue(func(r *RescueOptions) { r.PrefixSuffix, r.LCS = false, false }))
		text := itText("*** Update File: big.txt", "@@", " line 50000 - value 350000", "-line 50001 - value 0", "+x", " line 50002 - value 350014")
		b.ReportAllocs()
		for b.Loop() {
			_, err := a.Plan(context.Background(), text)
			if !strings.Contains(fmt.Sprint(err), "Closest match starts at file line 50001") {
				b.Fatalf("err = %v", err)
			}
		}
	})
}

func BenchmarkRewrite(b *testing.B) {
	b.Run("100chunks", func(b *testing.B) {
		content, text := bigCase(10_000, 100, true)
		_, a := itApplier(b, map[string]string{"big.txt": string(content)})
		b.ReportAllocs()
		for b.Loop() {
			rw, err := a.Rewrite(context.Background(), text)
			if err != nil || !rw.Changed {
				b.Fatalf("rewrite: %v", err)
			}
		}
	})
}

func BenchmarkCommit(b *testing.B) {
	b.Run("OSFS-50files", func(b *testing.B) {
		root, err := filepath.EvalSymlinks(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		var fwd, back strings.Builder
		fwd.WriteString("*** Begin Patch\n")
		back.WriteString("*** Begin Patch\n")
		for i := 0; i < 50; i++ {
			name := fmt.Sprintf("f%02d.txt", i)
			if err := os.WriteFile(filepath.Join(root, name), []byte("alpha\nbeta\ngamma\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			fmt.Fprintf(&fwd, "*** Update File: %s\n@@\n alpha\n-beta\n+BETA\n", name)
			fmt.Fprintf(&back, "*** Update File: %s\n@@\n alpha\n-BETA\n+beta\n", name)
		}
		fwd.WriteString("*** End Patch\n")
		back.WriteString("*** End Patch\n")
		o, err := wfs.NewOSFS(root)
		if err != nil {
			b.Fatal(err)
		}
		defer o.Close()
		a, err := New(o, root)
		if err != nil {
			b.Fatal(err)
		}
		texts := []string{fwd.String(), back.String()}
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			pl, err := a.Plan(context.Background(), texts[i%2])
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := a.Commit(context.Background(), pl); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

func BenchmarkCodexModel(b *testing.B) {
	b.Run("1000chunks", func(b *testing.B) {
		content, text := bigCase(100_000, 1000, false)
		hunks, err := codexParse(text)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := codexApplyText(content, hunks[0].chunks, "big.txt"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
