package taskboard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// viewGolden compares a rendered view with testdata/view/<name>.golden (-update rewrites).
func viewGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "view", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./taskboard -run TestViewGolden -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("view %s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

// TestViewGolden pins the prompt view's text with every label of R95 in one parent.
func TestViewGolden(t *testing.T) {
	e := newEnv(t, Options{MaxReusablePerAgent: 5, WallClock: time.Minute})
	// Hidden: a provisional placeholder and a reusable record unused for over 6 h.
	e.b.registerLaunch(launchInput{TaskID: "ses_prov", ParentID: p1, Agent: "explorer", Provisional: true})
	e.launch("ses_old", p1, "librarian")
	e.mustCommit("ses_old", StateCompleted, "old")
	e.ack("ses_old")
	e.tick(6*time.Hour + time.Millisecond)

	e.launch("ses_run", p1, "explorer")
	unc := e.launch("ses_unc", p1, "explorer")
	e.b.markStatusUncertain("ses_unc", unc.Generation, "lookup failed")
	to := e.launch("ses_to", p1, "designer")
	e.b.markTimedOut("ses_to", to.Generation)
	e.launch("ses_res", p1, "fixer")
	e.mustCommit("ses_res", StateCompleted, "first")
	e.ack("ses_res")
	e.launch("ses_res", p1, "fixer") // relaunch → running [resumed]

	ct := e.launch("ses_ct", p1, "council")
	e.b.markTimedOut("ses_ct", ct.Generation)
	e.mustCommit("ses_ct", StateCompleted, "finished late")
	e.launch("ses_err", p1, "observer")
	e.mustCommit("ses_err", StateError, "tool crashed:\n  stack trace line 1\n  line 2")
	e.launch("ses_stop", p1, "oracle")
	e.stop("ses_stop")
	e.launch("ses_kept", p1, "oracle")
	e.stop("ses_kept")
	e.ack("ses_kept")
	e.launch("ses_done", p1, "explorer")
	for i := range 10 {
		e.b.NoteContextFile("ses_done", fmt.Sprintf("pkg/file%d.go", i), 10+i, e.b.now().Add(time.Duration(i)*time.Second))
	}
	e.b.NoteContextFile("ses_done", "tiny.go", 9, e.b.now())
	e.mustCommit("ses_done", StateCompleted, "done")
	e.ack("ses_done")
	tr := e.launch("ses_tr", p1, "fixer")
	e.b.markTimedOut("ses_tr", tr.Generation)
	e.mustCommit("ses_tr", StateCompleted, "slow but done")
	e.ack("ses_tr")
	dl := e.launch("ses_dl", p1, "Custom Agent")
	e.b.claimDeadline("ses_dl", dl.Generation)
	e.b.finalizeClaim("ses_dl", dl.Generation, "abort was not confirmed")
	e.ack("ses_dl")
	e.launch("ses_long", p1, "")
	e.mustCommit("ses_long", StateCompleted, strings.Repeat("x", 600))
	e.launch("ses_other", p2, "explorer") // another parent: never shown

	v := e.b.view(p1)
	viewGolden(t, "all_labels", v.Text)
	var ids []string
	for _, s := range v.shown {
		ids = append(ids, s.TaskID)
	}
	if got := strings.Join(ids, ","); got != "ses_ct,ses_err,ses_stop,ses_long" {
		t.Fatalf("Shown %s", got)
	}
	if e.b.view("nobody").Text != "" {
		t.Fatal("empty parent rendered text")
	}
}
