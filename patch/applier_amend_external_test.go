package patch_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// The amendment's edge cases (E126–E145): a rescue removes only what the patch names, exact
// matches without anchors must be unique, changes already applied are refused, and chunks
// given out of order or under unified-diff headers are located by their lines.

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "l%d\n", i)
	}
	return b.String()
}

// wantPairing checks the report's pairing of chunk k (1-based).
func wantPairing(k int, want ...int) func(t *testing.T, res *patch.Result, err error) {
	return func(t *testing.T, res *patch.Result, err error) {
		t.Helper()
		if res == nil || len(res.Report) < k {
			t.Fatalf("no report for chunk %d", k)
		}
		if got := res.Report[k-1].Pairing; !slices.Equal(got, want) {
			t.Errorf("chunk %d pairing = %v, want %v (report %+v)", k, got, want, res.Report[k-1])
		}
	}
}

func wantNote(sub string) func(t *testing.T, res *patch.Result, err error) {
	return func(t *testing.T, res *patch.Result, err error) {
		t.Helper()
		for _, r := range res.Report {
			if strings.Contains(strings.Join(r.Notes, "; "), sub) {
				return
			}
		}
		t.Errorf("no report note contains %q: %+v", sub, res.Report)
	}
}

func TestAmendmentEdgeCases(t *testing.T) {
	compat := []patch.Option{patch.WithCodexCompat()}
	dup := strings.Replace(strings.Replace(numbered(1, 50), "l10\n", "dup\n", 1), "l40\n", "dup\n", 1)
	same := strings.Repeat("same\n", 100_000)
	long := []string{"*** Update File: big.txt", "@@"}
	for range 1999 {
		long = append(long, " same")
	}
	long = append(long, "-different", "+x")
	cases := []apCase{
		{
			name:  "E126_insert_only_context_apart_not_found",
			files: map[string]string{"a.go": "func foo() {\n\ta()\n\tb()\n\tc()\n}\n"},
			patch: apText("*** Update File: a.go", "@@", " func foo() {", "+\tlog()", " }"),
			kind:  patch.KindNotFound,
		},
		{
			name:  "E127_quote_fix_beside_drifted_context",
			files: map[string]string{"a.py": "a\nx = \u201ca\u201d\nb drifted!\nc\n"},
			patch: apText("*** Update File: a.py", "@@", " a", "-x = \u201ca\u201d", `+x = "a"`, " b", " c"),
			want:  map[string]string{"a.py": "a\nx = \"a\"\nb drifted!\nc\n"},
			check: wantPairing(1, 1, 2, 0, 4),
		},
		{
			name:  "E128_lcs_keeps_extra_file_line",
			files: map[string]string{"a.go": "func f() {\n  a := 1\n  admin_check = True\n  b := 2\n  old()\n}\n"},
			patch: apText("*** Update File: a.go", "@@", " func f() {", "   a := 1", "   b := 2", "-  old()", "+  new()", " }"),
			want:  map[string]string{"a.go": "func f() {\n  a := 1\n  admin_check = True\n  b := 2\n  new()\n}\n"},
			check: func(t *testing.T, res *patch.Result, err error) {
				apWantStrategies(patch.StrategyLCS)(t, res, err)
				wantPairing(1, 1, 2, 4, 5, 6)(t, res, err)
			},
		},
		{
			name:  "E128_left_out_context_line_kept_go",
			files: map[string]string{"d.go": "func (d *D) get() int {\n\tr := d.p\n\tx := r.n\n\treturn x\n}\n"},
			patch: apText("*** Update File: d.go", "@@", " func (d *D) get() int {", "-\tx := r.n", "+\tx := r.n + 1", " \treturn x", " }"),
			want:  map[string]string{"d.go": "func (d *D) get() int {\n\tr := d.p\n\tx := r.n + 1\n\treturn x\n}\n"},
		},
		{
			name:  "E128_left_out_context_line_kept_python",
			files: map[string]string{"m.py": "import os\nimport codecs\nimport sys\n\nprint(sys.argv)\n"},
			patch: apText("*** Update File: m.py", "@@", " import os", "-import sys", "+import sys, json", " ", " print(sys.argv)"),
			want:  map[string]string{"m.py": "import os\nimport codecs\nimport sys, json\n\nprint(sys.argv)\n"},
		},
		{
			name:  "E129_lcs_removed_line_unaligned_not_found",
			files: map[string]string{"a.go": "func f() {\n  a := 1\n  b := 2\n  other()\n}\n"},
			opts:  []patch.Option{rescue(func(r *patch.RescueOptions) { r.PrefixSuffix = false })},
			patch: apText("*** Update File: a.go", "@@", " func f() {", "   a := 1", "   b := 2", "-  old()", "+  new()", " }"),
			kind:  patch.KindNotFound, msg: []string{"does not contain every removed line"},
		},
		{
			name:  "E130_prefix_suffix_span_longer_than_middle",
			files: map[string]string{"a.txt": "top\nx\np\nq\nr\ny\n"},
			opts:  []patch.Option{rescue(func(r *patch.RescueOptions) { r.LCS = false })},
			patch: apText("*** Update File: a.txt", "@@", " x", "-p", "-q", "+n", " y"),
			kind:  patch.KindNotFound,
		},
		{
			name:  "E130_lcs_then_keeps_the_extra_line",
			files: map[string]string{"a.txt": "top\nx\np\nq\nr\ny\n"},
			patch: apText("*** Update File: a.txt", "@@", " x", "-p", "-q", "+n", " y"),
			want:  map[string]string{"a.txt": "top\nx\nn\nr\ny\n"},
			check: wantPairing(1, 2, 3, 4, 6),
		},
		{
			name:  "E131_changed_removed_line_named",
			files: map[string]string{"a.go": "package x\n\nconst hashSize = 22\n\nfunc f() {}\n"},
			patch: apText("*** Update File: a.go", "@@", " package x", " ", "-const hashSize = 16", "+const hashSize = 32", " ", " func f() {}"),
			kind:  patch.KindNotFound,
			msg: []string{"line 3 of a.go changed since the patch was written: the file has `const hashSize = 22`, " +
				"the patch expects `const hashSize = 16`; read the file again"},
			check: func(t *testing.T, res *patch.Result, err error) {
				if pe := apErr(err); pe.FileLine != 3 || pe.Line != 6 {
					t.Errorf("FileLine, Line = %d, %d; want 3, 6", pe.FileLine, pe.Line)
				}
			},
		},
		{
			name: "E132_exact_twice_without_anchor_ambiguous", files: map[string]string{"a.txt": dup},
			patch: apText("*** Update File: a.txt", "@@", "-dup", "+DUP"),
			kind:  patch.KindAmbiguous, msg: []string{"chunk 1 matches 2 places when compared with exact (file lines 10, 40); add more context lines or an @@ line"},
			check: func(t *testing.T, res *patch.Result, err error) {
				if got := apErr(err).Candidates; !slices.Equal(got, []int{10, 40}) {
					t.Errorf("candidates = %v", got)
				}
			},
		},
		{
			name: "E133_anchor_picks_the_second", files: map[string]string{"a.txt": dup},
			patch: apText("*** Update File: a.txt", "@@ l30", "-dup", "+DUP"),
			want:  map[string]string{"a.txt": strings.Replace(dup, "l39\ndup\n", "l39\nDUP\n", 1)},
			check: func(t *testing.T, res *patch.Result, err error) {
				if res.Report[0].Start != 40 {
					t.Errorf("start = %d, want 40", res.Report[0].Start)
				}
			},
		},
		{
			name: "E134_compat_first_hit", files: map[string]string{"a.txt": dup}, opts: compat,
			patch: apText("*** Update File: a.txt", "@@", "-dup", "+DUP"),
			want:  map[string]string{"a.txt": strings.Replace(dup, "dup\n", "DUP\n", 1)},
		},
		{
			name: "E135_patch_sent_twice", files: map[string]string{"a.txt": "a\nB\nc\n"},
			patch: apText("*** Update File: a.txt", "@@", " a", "-b", "+B", " c"),
			kind:  patch.KindAlreadyApplied, msg: []string{"This change is already in a.txt at line 1; nothing was written"},
		},
		{
			name: "E135_compat_applies_no_check", files: map[string]string{"a.txt": "one\nanchor\nmiddle\ntwo\n"}, opts: compat,
			patch: apText("*** Update File: a.txt", "@@ anchor", "+middle", "*** End of File"),
			want:  map[string]string{"a.txt": "one\nanchor\nmiddle\ntwo\nmiddle\n"},
		},
		{
			name: "E136_insertion_after_anchor_twice", files: map[string]string{"a.txt": "one\nanchor\nmiddle\ntwo\n"},
			patch: apText("*** Update File: a.txt", "@@ anchor", "+middle"),
			kind:  patch.KindAlreadyApplied, msg: []string{"already in a.txt at line 3"},
		},
		{
			name: "E136_insertion_with_context_before_twice", files: map[string]string{"a.txt": "one\nnew\ntwo\n"},
			patch: apText("*** Update File: a.txt", "@@", " one", "+new"),
			kind:  patch.KindAlreadyApplied,
		},
		{
			name: "E136_insertion_with_context_after_twice", files: map[string]string{"a.txt": "one\nnew\ntwo\n"},
			patch: apText("*** Update File: a.txt", "@@", "+new", " two"),
			kind:  patch.KindAlreadyApplied,
		},
		{
			name: "E136_insertion_around_context_twice", files: map[string]string{"a.txt": "one\nnew\ntwo\n"},
			patch: apText("*** Update File: a.txt", "@@", " one", "+new", " two"),
			kind:  patch.KindAlreadyApplied,
		},
		{
			name: "E136_append_twice", files: map[string]string{"a.txt": "one\ntail\n"},
			patch: apText("*** Update File: a.txt", "@@", "+tail"),
			kind:  patch.KindAlreadyApplied,
		},
		{
			name: "E136_blank_line_twice_is_legitimate", files: map[string]string{"a.txt": "one\nanchor\n\ntwo\n"},
			patch: apText("*** Update File: a.txt", "@@ anchor", "+"),
			want:  map[string]string{"a.txt": "one\nanchor\n\n\ntwo\n"},
		},
		{
			// Changed by the partly-applied rule: chunk 1 is soundly in the file (its new
			// lines once, its removed line gone), so chunk 2 is applied around it.
			name: "E136_partly_applied", files: map[string]string{"a.txt": "a\nB\nc\nd\ne\n"},
			patch: apText("*** Update File: a.txt", "@@", " a", "-b", "+B", " c", "@@", " d", "-e", "+E"),
			want:  map[string]string{"a.txt": "a\nB\nc\nd\nE\n"},
			check: apWantStrategies(patch.StrategyAlreadyApplied, patch.StrategyExact),
		},
		{
			// Chunk 1's new lines are in the file twice: which is chunk 1's is not known, so the
			// patch is refused whole as before.
			name: "E136_partly_applied_new_side_twice_refused_whole", files: map[string]string{"a.txt": "a\nB\nc\nd\ne\na\nB\nc\n"},
			patch: apText("*** Update File: a.txt", "@@", " a", "-b", "+B", " c", "@@", " d", "-e", "+E"),
			kind:  patch.KindAlreadyApplied,
			msg:   []string{"Part of this change is already in a.txt; nothing was written:\n  chunk 1: already applied at line 1\n  chunk 2: not applied yet"},
		},
		{
			name: "E140_long_chunk_on_identical_lines_not_found", files: map[string]string{"big.txt": same},
			patch: apText(long...),
			kind:  patch.KindNotFound, msg: []string{"stopped at the work limit"},
		},
		{
			name: "E141_loose_chunk_on_identical_lines_lists_six", files: map[string]string{"big.txt": strings.Repeat("  same\n", 100_000)},
			patch: apText("*** Update File: big.txt", "@@", "-same", "+x"),
			kind:  patch.KindAmbiguous, msg: []string{"matches 100000 places when compared with trim (file lines 1, 2, 3, 4, 5, 6 and 99994 more)"},
			check: func(t *testing.T, res *patch.Result, err error) {
				if got := apErr(err).Candidates; !slices.Equal(got, []int{1, 2, 3, 4, 5, 6}) {
					t.Errorf("candidates = %v", got)
				}
			},
		},
		{
			name: "E142_chunks_bottom_up", files: map[string]string{"a.txt": numbered(1, 20)},
			patch: apText("*** Update File: a.txt", "@@", " l14", "-l15", "+X", "@@", " l4", "-l5", "+Y"),
			want:  map[string]string{"a.txt": strings.Replace(strings.Replace(numbered(1, 20), "l15\n", "X\n", 1), "l5\n", "Y\n", 1)},
			check: wantNote("out of order"),
		},
		{
			name: "E143_out_of_order_not_unique", files: map[string]string{"a.txt": numbered(1, 20) + "l4\nl5\n"},
			patch: apText("*** Update File: a.txt", "@@", " l14", "-l15", "+X", "@@", " l4", "-l5", "+Y"),
			kind:  patch.KindAmbiguous, msg: []string{"chunk 2 matches 2 places when compared with exact (file lines 4, 21)"},
		},
		{
			name: "E144_unified_header_located_by_lines", files: map[string]string{"a.txt": numbered(1, 20)},
			patch: apText("*** Update File: a.txt", "@@ -120,7 +120,8 @@", " l7", "-l8", "+eight", " l9"),
			want:  map[string]string{"a.txt": strings.Replace(numbered(1, 20), "l8\n", "eight\n", 1)},
			check: wantNote("the patch said line 120; the lines were found at line 7"),
		},
		{
			name:  "E144_unified_header_not_unique_ambiguous",
			files: map[string]string{"a.txt": "x := 1\ny\nx := 1\n"},
			patch: apText("*** Update File: a.txt", "@@ -3,1 +3,1 @@", "-x := 1", "+x := 2"),
			kind:  patch.KindAmbiguous,
		},
		{
			name:  "E145_unified_header_text_is_the_anchor",
			files: map[string]string{"a.go": "func other() {\n\tx := 1\n}\nfunc main() {\n\tx := 1\n}\n"},
			patch: apText("*** Update File: a.go", "@@ -10,3 +10,4 @@ func main() {", "-\tx := 1", "+\tx := 2"),
			want:  map[string]string{"a.go": "func other() {\n\tx := 1\n}\nfunc main() {\n\tx := 2\n}\n"},
		},
	}
	apRun(t, cases)
}

// E135: the same patch applied twice through one Applier.
func TestAmendmentSecondApply(t *testing.T) {
	m := apTree(t, map[string]string{"a.txt": "a\nb\nc\n"})
	a, err := patch.New(m, apRoot)
	if err != nil {
		t.Fatal(err)
	}
	text := apText("*** Update File: a.txt", "@@", " a", "-b", "+B", " c", "*** Add File: n.txt", "+n")
	if _, err := a.Apply(context.Background(), apText("*** Update File: a.txt", "@@", " a", "-b", "+B", " c")); err != nil {
		t.Fatal(err)
	}
	before := apFiles(m)
	_, err = a.Apply(context.Background(), text)
	if pe := apErr(err); pe == nil || pe.Kind != patch.KindAlreadyApplied || pe.FileLine != 1 {
		t.Fatalf("second apply: %v, want already applied at line 1", err)
	}
	if got := apFiles(m); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("files changed: %v → %v", before, got)
	}
}

// E139: a symbolic link and its target in one patch are one file.
func TestE139SymlinkAndTargetOneFile(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T) (*wfs.MemFS, *patch.Applier) {
		m := apTree(t, map[string]string{"real.txt": "real\n"})
		if err := m.Symlink("real.txt", filepath.Join(apRoot, "l")); err != nil {
			t.Fatal(err)
		}
		a, err := patch.New(m, apRoot, patch.WithOverwrite(true))
		if err != nil {
			t.Fatal(err)
		}
		return m, a
	}
	t.Run("delete_link_then_add_replaces_the_link", func(t *testing.T) {
		m, a := setup(t)
		if _, err := a.Apply(ctx, apText("*** Delete File: l", "*** Add File: l", "+new")); err != nil {
			t.Fatal(err)
		}
		tree := m.Tree()
		if e := tree[filepath.Join(apRoot, "real.txt")]; string(e.Data) != "real\n" {
			t.Errorf("real.txt = %q, want it untouched", e.Data)
		}
		if e := tree[filepath.Join(apRoot, "l")]; e.Symlink || string(e.Data) != "new\n" {
			t.Errorf("l = %+v, want a regular file holding new", e)
		}
	})
	t.Run("update_target_and_delete_link_conflict", func(t *testing.T) {
		m, a := setup(t)
		before := m.Tree()
		_, err := a.Apply(ctx, apText("*** Update File: real.txt", "@@", "-real", "+REAL", "*** Delete File: l"))
		if pe := apErr(err); pe == nil || pe.Kind != patch.KindPathConflict || pe.Section != 2 {
			t.Fatalf("err = %v, want KindPathConflict at section 2", err)
		}
		if fmt.Sprint(m.Tree()) != fmt.Sprint(before) {
			t.Errorf("tree changed")
		}
	})
	t.Run("update_through_both_names_conflict", func(t *testing.T) {
		_, a := setup(t)
		_, err := a.Apply(ctx, apText("*** Update File: l", "@@", "-real", "+x", "*** Update File: real.txt", "@@", "-x", "+y"))
		if pe := apErr(err); pe == nil || pe.Kind != patch.KindPathConflict {
			t.Fatalf("err = %v, want KindPathConflict", err)
		}
	})
	t.Run("delete_link_removes_the_link", func(t *testing.T) {
		m, a := setup(t)
		if _, err := a.Apply(ctx, apText("*** Delete File: l")); err != nil {
			t.Fatal(err)
		}
		tree := m.Tree()
		if _, ok := tree[filepath.Join(apRoot, "l")]; ok {
			t.Errorf("the link is still there")
		}
		if e := tree[filepath.Join(apRoot, "real.txt")]; string(e.Data) != "real\n" {
			t.Errorf("real.txt = %q", e.Data)
		}
	})
}

// Temporaries have one recognisable name; Plan reports those an interrupted commit left and
// never deletes them.
func TestCommitLeftovers(t *testing.T) {
	ctx := context.Background()
	m := apTree(t, map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n"})
	a, err := patch.New(m, apRoot)
	if err != nil {
		t.Fatal(err)
	}
	text := apText("*** Update File: a.txt", "@@", "-a", "+A")
	m.ResetCalls()
	if _, err := a.Apply(ctx, text); err != nil {
		t.Fatal(err)
	}
	var temps int
	for _, c := range m.Calls() {
		if c.Op == "open" && !strings.Contains(c.Name, wfs.JournalDir) {
			temps++
			if base := filepath.Base(c.Name); !wfs.IsLeftover(base) {
				t.Errorf("temporary %q does not match the documented pattern", base)
			}
		}
	}
	if temps == 0 {
		t.Fatal("no temporary was created")
	}
	left := filepath.Join(apRoot, ".a.txt.hkpatch-0a1b2c3d.tmp")
	_ = m.WriteFile(left, []byte("half"), 0o644)
	_ = m.WriteFile(filepath.Join(apRoot, ".a.txt.tmp"), []byte("someone else's"), 0o644)
	_ = m.WriteFile(filepath.Join(apRoot, "sub/.b.txt.hkpatch-00000000.tmp"), []byte("not touched"), 0o644)
	pl, err := a.Plan(ctx, apText("*** Update File: a.txt", "@@", "-A", "+a"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pl.Leftovers, []string{left}) {
		t.Errorf("leftovers = %q, want only %q (the directories the plan touches)", pl.Leftovers, left)
	}
	res, err := a.Commit(ctx, pl)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Leftovers, pl.Leftovers) {
		t.Errorf("result leftovers = %q, want the plan's", res.Leftovers)
	}
	if _, err := m.Stat(left); err != nil {
		t.Errorf("the leftover was deleted: %v", err)
	}
	for _, name := range []string{".x.hkpatch-0a1b2c3d.tmp"} {
		if !wfs.IsLeftover(name) {
			t.Errorf("IsLeftover(%q) = false", name)
		}
	}
	for _, name := range []string{"x.hkpatch-0a1b2c3d.tmp", ".x.hkpatch-0a1b2c3.tmp", ".x.0a1b2c3d.tmp", ".x.hkpatch-0A1B2C3D.tmp"} {
		if wfs.IsLeftover(name) {
			t.Errorf("IsLeftover(%q) = true", name)
		}
	}
}
