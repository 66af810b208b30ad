//go:build cgo

package astsearch

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

var sideBySide = flag.Bool("astsearch.sidebyside", false, "time native (2 workers) against ast-grep -j 2 on GOROOT/src (minutes)")

// BenchmarkSearchNet is the CI benchmark: GOROOT/src/net with a selective and an
// unselective pattern, 2 workers.
func BenchmarkSearchNet(b *testing.B) {
	dir := filepath.Join(runtime.GOROOT(), "src", "net")
	fsys := os.DirFS(dir)
	for _, p := range []string{"if err != nil { return $$$ }", "fmt.Errorf($A, $$$)", "$A == nil"} {
		b.Run(p, func(b *testing.B) {
			var files, matches int
			for b.Loop() {
				r, err := Search(context.Background(), fsys, Request{Pattern: p, Lang: Go, Threads: 2, MaxMatches: math.MaxInt, MaxOutputBytes: math.MaxInt})
				if err != nil {
					b.Fatal(err)
				}
				files, matches = r.Stats.Files, r.TotalMatches
			}
			b.ReportMetric(float64(files), "files")
			b.ReportMetric(float64(matches), "matches")
		})
	}
}

var sideBySideRuns = flag.Int("astsearch.sidebyside.runs", 5, "alternating runs of each side per pattern in TestSideBySide")

// TestSideBySide times native searches (2 workers) against `ast-grep run -j 2` over
// GOROOT/src for selective and unselective patterns, in the same run (the file cache is
// warmed by one untimed search of each side first), alternating the two sides
// -astsearch.sidebyside.runs times: the median wall time and CPU time (user+sys; the
// native side's is this process's during the search, where supported; CPU time is what a
// loaded machine disturbs less) of each side, and the median of the run-by-run ratios. The
// load average before and after is logged where the system reports it. Every run must find
// as many matches on both sides. Opt-in with -astsearch.sidebyside; needs ast-grep.
func TestSideBySide(t *testing.T) {
	if !*sideBySide {
		t.Skip("opt-in: -astsearch.sidebyside (several minutes)")
	}
	exe := astGrep(t)
	dir := filepath.Join(runtime.GOROOT(), "src")
	fsys := os.DirFS(dir)
	type run struct {
		wall, cpu time.Duration
		matches   int
		failed    int // files whose parse failed or timed out (native side)
	}
	native := func(p string) run {
		c0 := processCPU()
		t0 := time.Now()
		r, err := Search(context.Background(), fsys, Request{Pattern: p, Lang: Go, Threads: 2, MaxMatches: math.MaxInt, MaxOutputBytes: math.MaxInt})
		if err != nil {
			t.Fatal(err)
		}
		return run{time.Since(t0), processCPU() - c0, r.TotalMatches, r.Stats.Skipped.ParseFailed}
	}
	sg := func(p string) run {
		t0 := time.Now()
		cmd := exec.Command(exe, "run", "-p", p, "--lang", "go", "-j", "2", "--json=stream", ".")
		cmd.Dir = dir
		out, err := cmd.Output()
		// ast-grep run exits with 1 when nothing matched ("fmt.Errorf($$$)" is a type
		// conversion in tree-sitter-go's reading, as it is natively: no call matches it).
		if ee := (*exec.ExitError)(nil); err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1 && len(out) == 0) {
			t.Fatalf("ast-grep: %v", err)
		}
		wall := time.Since(t0)
		return run{wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), bytes.Count(out, []byte("\n")), 0}
	}
	median := func(xs []float64) float64 {
		slices.Sort(xs)
		n := len(xs)
		return (xs[(n-1)/2] + xs[n/2]) / 2
	}
	t.Logf("load average before: %s", loadAverage())
	for _, p := range []string{"fmt.Errorf($$$)", "fmt.Errorf($A, $$$)", "$A == nil"} {
		if p == "fmt.Errorf($$$)" {
			native(p) // warm the file cache once
			sg(p)
		}
		var nw, nc, sw, sc, rw, rc []float64
		for range max(*sideBySideRuns, 1) {
			n, s := native(p), sg(p)
			if n.matches != s.matches {
				t.Errorf("%q: %d matches natively (%d files failed to parse), %d on ast-grep", p, n.matches, n.failed, s.matches)
			}
			nw, nc = append(nw, n.wall.Seconds()), append(nc, n.cpu.Seconds())
			sw, sc = append(sw, s.wall.Seconds()), append(sc, s.cpu.Seconds())
			rw, rc = append(rw, n.wall.Seconds()/s.wall.Seconds()), append(rc, n.cpu.Seconds()/s.cpu.Seconds())
			t.Logf("%-22q run: native wall %.3f s cpu %.3f s (%d matches) | ast-grep wall %.3f s cpu %.3f s (%d matches)",
				p, n.wall.Seconds(), n.cpu.Seconds(), n.matches, s.wall.Seconds(), s.cpu.Seconds(), s.matches)
		}
		t.Logf("%-22q median of %d: native 2 workers wall %.3f s cpu %.3f s | ast-grep -j 2 wall %.3f s cpu %.3f s | ratio wall %.2f cpu %.2f",
			p, len(nw), median(nw), median(nc), median(sw), median(sc), median(rw), median(rc))
	}
	t.Logf("load average after: %s", loadAverage())
}

// loadAverage is the first three fields of /proc/loadavg, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
