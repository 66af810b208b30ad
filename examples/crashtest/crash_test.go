//go:build unix

package crashtest

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnesskit/harnesskit/wfs"
)

// TestKilledMidCommit runs each writer's multi-file commit in a loop in a child process and
// kills the child with SIGKILL at a random moment, again and again on the same tree; after
// each kill the tree is recovered (wfs.Recover, as opening the tree does) and must be exactly
// the tree before or the tree after one commit — no mixed tree, no temporary, no journal.
// CRASHTEST_KILLS sets the kills per writer (default 150).
func TestKilledMidCommit(t *testing.T) {
	kills := scale("CRASHTEST_KILLS", 150)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d (delays are drawn from it)", seed)
	for _, w := range writers() {
		t.Run(w.name, func(t *testing.T) {
			if why := w.needs(); why != "" {
				t.Skip(why)
			}
			rng := rand.New(rand.NewPCG(seed, uint64(len(w.name))))
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if err := plant(dir, w.a); err != nil {
				t.Fatal(err)
			}
			o, err := wfs.NewOSFS(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			outcome := map[string]int{}
			interrupted := 0
			for k := range kills {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), "CRASHTEST_CHILD=commit", "CRASHTEST_WRITER="+w.name, "CRASHTEST_DIR="+dir)
				out, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "go\n" {
					_ = cmd.Process.Kill()
					t.Fatalf("kill %d: the child did not start: %q, %v", k, line, err)
				}
				time.Sleep(time.Duration(rng.IntN(60_000)) * time.Microsecond)
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				recs, err := wfs.Recover(context.Background(), o, dir)
				if err != nil {
					t.Fatalf("kill %d: Recover: %v", k, err)
				}
				if len(recs) > 0 {
					interrupted++
				}
				got, err := snapshot(dir)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case cmp.Equal(got, w.a):
					outcome["a"]++
				case cmp.Equal(got, w.b):
					outcome["b"]++
				default:
					t.Fatalf("kill %d: after recovery (%v) the tree is neither state (-a +got):\n%s", k, recs, cmp.Diff(w.a, got))
				}
			}
			t.Logf("%d kills: tree a %d times, tree b %d times, 0 mixed, 0 leftovers; %d kills interrupted a commit (its journal was recovered)",
				kills, outcome["a"], outcome["b"], interrupted)
			if outcome["a"] == 0 || outcome["b"] == 0 || interrupted == 0 {
				t.Errorf("the kills never landed in both states or never mid-commit: %v, %d interrupted", outcome, interrupted)
			}
		})
	}
}
