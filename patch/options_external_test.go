package patch_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/pathguard"
	"github.com/harnesskit/harnesskit/wfs"
)

func TestNewRejectsBadConfiguration(t *testing.T) {
	m := wfs.NewMemFS()
	_ = m.MkdirAll(apRoot, 0o755)
	cases := []struct {
		name string
		fsys wfs.FS
		root string
		opts []patch.Option
		want string
	}{
		{name: "nil_fs", fsys: nil, root: apRoot, want: "nil FS"},
		{name: "relative_root", fsys: m, root: "w/root", want: "not an absolute path"},
		{name: "unknown_level", fsys: m, root: apRoot, opts: []patch.Option{rescue(func(r *patch.RescueOptions) { r.MaxTolerance = patch.Level(9) })}, want: "MaxTolerance"},
		{name: "zero_lcs_lines", fsys: m, root: apRoot, opts: []patch.Option{rescue(func(r *patch.RescueOptions) { r.LCSMaxLines, r.LCSMaxCandidates, r.LCSThreshold = 0, 64, 0.7 })}, want: "LCSMaxLines"},
		{name: "nan_threshold", fsys: m, root: apRoot, opts: []patch.Option{rescue(func(r *patch.RescueOptions) { r.LCSMaxLines, r.LCSMaxCandidates, r.LCSThreshold = 48, 64, math.NaN() })}, want: "threshold"},
		{name: "threshold_above_one", fsys: m, root: apRoot, opts: []patch.Option{rescue(func(r *patch.RescueOptions) { r.LCSMaxLines, r.LCSMaxCandidates, r.LCSThreshold = 48, 64, 1.5 })}, want: "threshold"},
		{name: "nil_margin", fsys: m, root: apRoot, opts: []patch.Option{rescue(func(r *patch.RescueOptions) { r.Margin = nil })}, want: "Margin"},
		{name: "zero_work_limit", fsys: m, root: apRoot, opts: []patch.Option{rescue(func(r *patch.RescueOptions) { r.WorkLimit = 0 })}, want: "WorkLimit"},
		{name: "negative_file_size", fsys: m, root: apRoot, opts: []patch.Option{patch.WithMaxFileSize(-1)}, want: "WithMaxFileSize"},
		{name: "unknown_policy", fsys: m, root: apRoot, opts: []patch.Option{patch.WithOutsidePolicy(patch.OutsidePolicy(7))}, want: "WithOutsidePolicy"},
		{name: "unknown_eol", fsys: m, root: apRoot, opts: []patch.Option{patch.WithEOL(patch.EOLMode(7))}, want: "WithEOL"},
		{name: "relative_worktree", fsys: m, root: apRoot, opts: []patch.Option{patch.WithWorktrees("rel")}, want: "patch: New"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := patch.New(tc.fsys, tc.root, tc.opts...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New error = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestOptionEffects(t *testing.T) {
	compatEOL := []patch.Option{patch.WithEOL(patch.EOLCodex)}
	var stale strings.Builder
	stale.WriteString("x\n")
	for i := 0; i < 5; i++ {
		stale.WriteString("old\n")
	}
	stale.WriteString("y\n")
	cases := []apCase{
		{
			name: "eol_codex_alone_adds_final_newline", files: map[string]string{"a.txt": "a\nb"}, opts: compatEOL,
			patch: apText("*** Update File: a.txt", "@@", "-a", "+A"), want: map[string]string{"a.txt": "A\nb\n"},
		},
		{
			name: "atomic_off_keeps_earlier_sections", files: map[string]string{"a.txt": "a\n"},
			opts:  []patch.Option{patch.WithAtomic(false)},
			patch: apText("*** Update File: a.txt", "@@", "-a", "+A", "*** Delete File: missing.txt"),
			want:  map[string]string{"a.txt": "A\n"}, kind: patch.KindMissingFile,
		},
		{
			name: "overwrite_keeps_replaced_mode", files: map[string]string{"a.txt": "old\n"},
			opts:  []patch.Option{patch.WithOverwrite(true)},
			patch: apText("*** Add File: a.txt", "+new"), want: map[string]string{"a.txt": "new\n"},
			setup: func(m *wfs.MemFS) { _ = m.Chmod(filepath.Join(apRoot, "a.txt"), 0o664) },
			check: func(t *testing.T, res *patch.Result, err error) {
				if got := res.Changes[0].Mode; got != 0o664 {
					t.Errorf("planned mode = %v, want 0664", got)
				}
			},
			checkFS: func(t *testing.T, m *wfs.MemFS) {
				if got := m.Tree()[filepath.Join(apRoot, "a.txt")].Mode; got != 0o664 {
					t.Errorf("written mode = %v, want the replaced file's 0664 (a 022 umask would give 0644)", got)
				}
			},
		},
		{
			name: "lcs_limits_too_small", files: map[string]string{"a.txt": "top\nA\nB\nC\nD\nE\nbottom\n"},
			opts:  []patch.Option{rescue(func(r *patch.RescueOptions) { r.LCSMaxLines, r.StaleEdges = 4, false })},
			patch: apText("*** Update File: a.txt", "@@", " A", " Bx", " C", " D", "-E", "+X"), kind: patch.KindNotFound,
		},
		{
			name: "rescue_margin_too_large", files: map[string]string{"a.txt": "top\nA\nB\nC\nD\nE\nbottom\n"},
			opts:  []patch.Option{rescue(func(r *patch.RescueOptions) { r.Margin = func(int) int { return 5 } })},
			patch: apText("*** Update File: a.txt", "@@", " A", " Bx", " C", " D", "-E", "+X"), kind: patch.KindAmbiguous,
		},
		{
			name: "prefix_suffix_off", files: map[string]string{"a.txt": "x\nq\nstale text\nold\ny\n"},
			opts:  []patch.Option{rescue(func(r *patch.RescueOptions) { r.PrefixSuffix, r.LCS = false, false })},
			patch: apText("*** Update File: a.txt", "@@", " x", "-q", " stale txt", "-old", "+new", " y"), kind: patch.KindNotFound,
		},
		{
			name: "prefix_suffix_on", files: map[string]string{"a.txt": "x\nq\nstale text\nold\ny\n"},
			opts:  []patch.Option{rescue(func(r *patch.RescueOptions) { r.LCS = false })},
			patch: apText("*** Update File: a.txt", "@@", " x", "-q", " stale txt", "-old", "+new", " y"),
			want:  map[string]string{"a.txt": "x\nstale text\nnew\ny\n"},
		},
		{
			name: "new_file_mode", files: map[string]string{},
			opts:  []patch.Option{patch.WithNewFileMode(0o640, 0o750)},
			patch: apText("*** Add File: d/n.txt", "+n"), want: map[string]string{"d/n.txt": "n\n"},
			checkFS: func(t *testing.T, m *wfs.MemFS) {
				tree := m.Tree()
				if got := tree[filepath.Join(apRoot, "d/n.txt")].Mode; got != 0o640 {
					t.Errorf("written file mode = %v, want 0640 (not the default 0644)", got)
				}
				if got := tree[filepath.Join(apRoot, "d")].Mode; got != 0o750 {
					t.Errorf("created directory mode = %v, want 0750 (not the default 0755)", got)
				}
			},
		},
	}
	apRun(t, cases)

	t.Run("relative_paths_off_keeps_absolute", func(t *testing.T) {
		m := apTree(t, map[string]string{"a.txt": "x\nold\ny\n"})
		a, _ := patch.New(m, apRoot, patch.WithRelativePaths(false))
		rw, err := a.Rewrite(context.Background(), apText("*** Update File: "+filepath.Join(apRoot, "a.txt"), "@@", " x", "-old  ", "+new", " y"))
		if err != nil || !strings.Contains(rw.Text, "*** Update File: "+filepath.Join(apRoot, "a.txt\n")) {
			t.Errorf("rewrite = %+v, %v", rw, err)
		}
	})
	t.Run("custom_containment", func(t *testing.T) {
		m := apTree(t, map[string]string{"a.txt": "a\n"})
		_ = m.MkdirAll(testenv.Abs("/w/other"), 0o755)
		ct, err := pathguard.NewContainment(apRoot, pathguard.WithWorktrees(testenv.Abs("/w/other")), pathguard.WithResolver(m))
		if err != nil {
			t.Fatal(err)
		}
		a, _ := patch.New(m, apRoot, patch.WithContainment(ct))
		if _, err := a.Apply(context.Background(), apText("*** Add File: /w/other/n.txt", "+n")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("names", func(t *testing.T) {
		got := fmt.Sprint(patch.Block, patch.PassThrough, patch.EOLPreserve, patch.EOLCodex, patch.LevelUnicodeTrim, patch.Level(9),
			patch.Added, patch.Modified, patch.Moved, patch.Deleted)
		want := "block pass-through preserve codex unicode-trim level(9) add update move delete"
		if got != want {
			t.Errorf("names = %q, want %q", got, want)
		}
	})
}

// A root that does not exist is reported when the Applier is made, not at the first Apply.
func TestMissingRootAtConstruction(t *testing.T) {
	m := wfs.NewMemFS()
	if _, err := patch.New(m, testenv.Abs("/nowhere")); err == nil || !strings.Contains(err.Error(), testenv.Abs("/nowhere")) {
		t.Errorf("New on a missing root: %v, want an error naming it", err)
	}
	_ = m.WriteFile(testenv.Abs("/file"), []byte("x"), 0o644)
	if _, err := patch.New(m, testenv.Abs("/file")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("New on a file: %v, want not a directory", err)
	}
	dir := t.TempDir()
	if _, err := patch.Open(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("Open on a missing root: %v", err)
	}
	if _, err := patch.Open(dir, patch.WithWorktrees(filepath.Join(dir, "nope"))); err == nil || !strings.Contains(err.Error(), "worktree") {
		t.Errorf("Open with a missing worktree: %v", err)
	}
	a, err := patch.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
