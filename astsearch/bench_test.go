//go:build cgo

package astsearch

import (
	"context"
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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

// TestSideBySide times one native search (2 workers) against `ast-grep run -j 2` over
// GOROOT/src for selective and unselective patterns, in the same run (the file cache is
// warmed by one untimed search first): wall time, and CPU time (user+sys; the native side's
// is this process's during the search, where supported), which a loaded machine disturbs
// less. Opt-in with -astsearch.sidebyside; needs ast-grep.
func TestSideBySide(t *testing.T) {
	if !*sideBySide {
		t.Skip("opt-in: -astsearch.sidebyside (several minutes)")
	}
	exe := astGrep(t)
	dir := filepath.Join(runtime.GOROOT(), "src")
	fsys := os.DirFS(dir)
	for _, p := range []string{"fmt.Errorf($$$)", "fmt.Errorf($A, $$$)", "$A == nil"} {
		native := func() (time.Duration, time.Duration, int) {
			c0 := processCPU()
			t0 := time.Now()
			r, err := Search(context.Background(), fsys, Request{Pattern: p, Lang: Go, Threads: 2, MaxMatches: math.MaxInt, MaxOutputBytes: math.MaxInt})
			if err != nil {
				t.Fatal(err)
			}
			return time.Since(t0), processCPU() - c0, r.TotalMatches
		}
		sg := func() (time.Duration, time.Duration, int) {
			t0 := time.Now()
			cmd := exec.Command(exe, "run", "-p", p, "--lang", "go", "-j", "2", "--json=stream", ".")
			cmd.Dir = dir
			out, _ := cmd.Output()
			wall := time.Since(t0)
			var cpu time.Duration
			if cmd.ProcessState != nil {
				cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			return wall, cpu, strings.Count(string(out), "\n")
		}
		if p == "fmt.Errorf($$$)" {
			native() // warm the file cache once
		}
		tn, cn, mn := native()
		ts, cs, ms := sg()
		t.Logf("%-22q native 2 workers %8v cpu %8v (%d matches) | ast-grep -j 2 %8v cpu %8v (%d matches) | ratio wall %.2f cpu %.2f",
			p, tn.Round(time.Millisecond), cn.Round(time.Millisecond), mn, ts.Round(time.Millisecond), cs.Round(time.Millisecond), ms,
			tn.Seconds()/ts.Seconds(), cn.Seconds()/cs.Seconds())
		if mn != ms {
			t.Errorf("%q: %d matches natively, %d on ast-grep", p, mn, ms)
		}
	}
}
