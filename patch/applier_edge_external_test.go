package patch_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// TestApplyFileEdgeCases covers the spec's numbered edge cases about file operations, content
// fidelity and rescue bounds.
func TestApplyFileEdgeCases(t *testing.T) {
	compat := []patch.Option{patch.WithCodexCompat()}
	bomS := "\ufeff"
	big := strings.Repeat("x\n", 6)
	var far strings.Builder
	far.WriteString("print(\"a\")\n")
	for i := 0; i < 500; i++ {
		far.WriteString("filler\n")
	}
	far.WriteString("end\n")
	cases := []apCase{
		{
			name: "E57_leading_whitespace_drift_at_trim", files: map[string]string{"a.txt": "x\n  alpha  \ny\n"},
			patch: apText("*** Update File: a.txt", "@@", " alpha", "+beta"),
			want:  map[string]string{"a.txt": "x\n  alpha  \nbeta\ny\n"}, check: apWantStrategies(patch.StrategyTrim),
		},
		{
			name: "E57_yaml_indent_levels_ambiguous", files: map[string]string{"c.yaml": "a:\n  enabled: false\nb:\n    enabled: false\n"},
			patch: apText("*** Update File: c.yaml", "@@", "-enabled: false", "+enabled: true"),
			kind:  patch.KindAmbiguous, msg: []string{"compared with trim (file lines 2, 4)"},
		},
		{
			name:  "E61_add_root_itself_is_a_directory",
			patch: apText("*** Add File: "+apRoot, "+x"), opts: []patch.Option{patch.WithOverwrite(true)},
			kind: patch.KindPathConflict, msg: []string{"Add File target is a directory: " + apRoot},
		},
		{
			name: "E62_add_existing_refused", files: map[string]string{"a.txt": "a\n"},
			patch: apText("*** Add File: a.txt", "+b"), kind: patch.KindExists,
			msg: []string{"Add File target already exists: a.txt. Use '*** Update File: a.txt' to change it, or delete it first."},
		},
		{
			name: "E62_move_onto_existing_refused", files: map[string]string{"a.txt": "a\n", "b.txt": "b\n"},
			patch: apText("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+A"), kind: patch.KindExists,
			msg: []string{"Move destination already exists: b.txt"},
		},
		{
			name: "E62_delete_missing", files: map[string]string{},
			patch: apText("*** Delete File: nope.txt"), kind: patch.KindMissingFile,
			msg: []string{"Failed to delete file nope.txt: file does not exist"},
		},
		{
			name: "E62_delete_twice", files: map[string]string{"a.txt": "a\n"},
			patch: apText("*** Delete File: a.txt", "*** Delete File: a.txt"), kind: patch.KindMissingFile,
			msg: []string{"Failed to delete file a.txt: file does not exist"},
		},
		{
			name: "E62_delete_move_source_after_move", files: map[string]string{"a.txt": "a\n"},
			patch: apText("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+A", "*** Delete File: a.txt"),
			kind:  patch.KindMissingFile, msg: []string{"Failed to delete file a.txt: file does not exist"},
		},
		{
			name: "E63_two_sections_one_file", files: map[string]string{"a.txt": "alpha\nbeta\ngamma\ndelta\n"},
			patch: apText("*** Update File: a.txt", "@@ alpha", "-beta", "+BETA", "*** Update File: a.txt", "@@ gamma", "-delta", "+DELTA"),
			want:  map[string]string{"a.txt": "alpha\nBETA\ngamma\nDELTA\n"}, summary: "Success. Updated the following files:\nM a.txt\n",
		},
		{
			name: "E64_second_section_edits_first_result", files: map[string]string{"a.txt": "alpha\nbeta\n"},
			patch: apText("*** Update File: a.txt", "@@ alpha", "-beta", "+BETA", "*** Update File: a.txt", "@@", "-BETA", "+BETA!"),
			want:  map[string]string{"a.txt": "alpha\nBETA!\n"},
		},
		{
			name: "E65_add_then_update", files: map[string]string{},
			patch: apText("*** Add File: n.txt", "+one", "*** Update File: n.txt", "@@", "-one", "+ONE"),
			want:  map[string]string{"n.txt": "ONE\n"}, summary: "Success. Updated the following files:\nA n.txt\n",
		},
		{
			name: "E65_add_update_move", files: map[string]string{},
			patch: apText("*** Add File: n.txt", "+one", "*** Update File: n.txt", "*** Move to: m.txt", "@@", "-one", "+ONE"),
			want:  map[string]string{"m.txt": "ONE\n"}, summary: "Success. Updated the following files:\nA m.txt\n",
		},
		{
			name: "E66_move_then_update_destination", files: map[string]string{"a.txt": "one\ntwo\n"},
			patch: apText("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-one", "+ONE", "*** Update File: b.txt", "@@", "-two", "+TWO"),
			want:  map[string]string{"b.txt": "ONE\nTWO\n"}, summary: "Success. Updated the following files:\nM b.txt\n",
		},
		{
			name: "E67_sections_in_order", files: map[string]string{"a.txt": "one\ntwo\nthree\nfour\nfive\n"},
			patch: apText("*** Update File: a.txt", "@@", " one", "-two", "+TWO", "*** Update File: a.txt", "@@", " three", "-four", "+FOUR"),
			want:  map[string]string{"a.txt": "one\nTWO\nthree\nFOUR\nfive\n"},
			check: func(t *testing.T, res *patch.Result, err error) {
				if len(res.Report) != 2 || res.Report[0].Section != 1 || res.Report[1].Section != 2 {
					t.Errorf("report = %+v, want sections 1 then 2", res.Report)
				}
			},
		},
		{
			name: "E74_stale_update_plus_outside_add_blocked", files: map[string]string{"a.txt": "x\nold\ny\n"},
			patch: apText("*** Update File: a.txt", "@@", " x", "-stale", "+new", " y", "*** Add File: ../out.txt", "+o"),
			kind:  patch.KindBlocked, msg: []string{"patch contains path outside workspace root: ../out.txt"},
			check: func(t *testing.T, _ *patch.Result, err error) {
				// The error points at the header of the section that names the outside path.
				if pe := apErr(err); pe.Line != 8 || pe.Section != 2 || pe.Path != "../out.txt" {
					t.Errorf("blocked error at line %d, section %d, path %q; want line 8, section 2, ../out.txt", pe.Line, pe.Section, pe.Path)
				}
			},
		},
		{
			name: "E74_pass_through_untouched", files: map[string]string{"a.txt": "x\nold\ny\n"},
			opts:  []patch.Option{patch.WithOutsidePolicy(patch.PassThrough)},
			patch: apText("*** Update File: a.txt", "@@", " x", "-stale", "+new", " y", "*** Delete File: /etc/passwd"),
			check: func(t *testing.T, res *patch.Result, err error) {
				if !res.PassedThrough || len(res.Outside) != 1 || res.Outside[0] != "/etc/passwd" {
					t.Errorf("result = %+v, want passed through with /etc/passwd outside", res)
				}
			},
		},
		{
			name: "E90_move_to_same_path_is_in_place", files: map[string]string{"a.txt": "a\n"},
			patch: apText("*** Update File: a.txt", "*** Move to: ./a.txt", "@@", "-a", "+b"),
			want:  map[string]string{"a.txt": "b\n"}, summary: "Success. Updated the following files:\nM a.txt\n",
		},
		{
			name: "E92_bom_kept_once", files: map[string]string{"a.txt": bomS + "one\ntwo\n"},
			patch: apText("*** Update File: a.txt", "@@", "-one", "+ONE"),
			want:  map[string]string{"a.txt": bomS + "ONE\ntwo\n"},
		},
		{
			name: "E92_compat_bom_is_content", files: map[string]string{"a.txt": bomS + "one\ntwo\n"}, opts: compat,
			patch: apText("*** Update File: a.txt", "@@", "-one", "+ONE"),
			want:  map[string]string{"a.txt": "ONE\ntwo\n"},
		},
		{
			name: "E93_pattern_with_bom_matches_line_one_exactly", files: map[string]string{"a.txt": bomS + "one\ntwo\n"},
			patch: apText("*** Update File: a.txt", "@@", "-"+bomS+"one", "+ONE"),
			want:  map[string]string{"a.txt": bomS + "ONE\ntwo\n"}, check: apWantStrategies(patch.StrategyExact),
		},
		{
			name: "E94_append_without_final_newline", files: map[string]string{"a.txt": "a\nb"},
			patch: apText("*** Update File: a.txt", "@@", "+c"), want: map[string]string{"a.txt": "a\nb\nc"},
		},
		{
			name: "E94_compat_append_adds_newline", files: map[string]string{"a.txt": "a\nb"}, opts: compat,
			patch: apText("*** Update File: a.txt", "@@", "+c"), want: map[string]string{"a.txt": "a\nb\nc\n"},
		},
		{
			name: "E95_append_to_empty_file", files: map[string]string{"a.txt": ""},
			patch: apText("*** Update File: a.txt", "@@", "+x"), want: map[string]string{"a.txt": "x\n"},
		},
		{
			name: "E96_remove_every_line", files: map[string]string{"a.txt": "a\nb\n"},
			patch: apText("*** Update File: a.txt", "@@", "-a", "-b"), want: map[string]string{"a.txt": ""},
		},
		{
			name: "E96_remove_every_line_keeps_bom", files: map[string]string{"a.txt": bomS + "a\nb\n"},
			patch: apText("*** Update File: a.txt", "@@", "-a", "-b"), want: map[string]string{"a.txt": bomS},
		},
		{
			name: "E97_old_mac_line_breaks", files: map[string]string{"a.txt": "a\rb\r"},
			patch: apText("*** Update File: a.txt", "@@", "-a", "+A"), want: map[string]string{"a.txt": "A\rb\r"},
		},
		{
			name: "E97_lone_cr_is_content_in_lf_file", files: map[string]string{"a.txt": "x\ry\nz\n"},
			patch: apText("*** Update File: a.txt", "@@", "-x\ry", "+w"), want: map[string]string{"a.txt": "w\nz\n"},
			check: apWantStrategies(patch.StrategyExact),
		},
		{
			name: "E98_invalid_utf8_preserved", files: map[string]string{"a.bin": "\xff\xfe bad\nmid\n\xc3\x28 end\n"},
			patch: apText("*** Update File: a.bin", "@@", "-mid", "+MID"), want: map[string]string{"a.bin": "\xff\xfe bad\nMID\n\xc3\x28 end\n"},
		},
		{
			name: "E99_mixed_endings_insert_dominant", files: map[string]string{"a.txt": "a\nb\r\nc\r\nd\r\n"},
			patch: apText("*** Update File: a.txt", "@@", " a", "+new"), want: map[string]string{"a.txt": "a\nnew\r\nb\r\nc\r\nd\r\n"},
		},
		{
			name: "E99_compat_mixed_endings_first_break", files: map[string]string{"a.txt": "a\nb\r\nc\r\nd\r\n"}, opts: compat,
			patch: apText("*** Update File: a.txt", "@@", " a", "+new"), want: map[string]string{"a.txt": "a\nnew\nb\r\nc\r\nd\r\n"},
		},
		{
			name: "E100_eof_chunk_only_final_position", files: map[string]string{"a.txt": "x\ny\nmid\nx\ny\n"},
			patch: apText("*** Update File: a.txt", "@@", " x", "-y", "+Y", "*** End of File"), want: map[string]string{"a.txt": "x\ny\nmid\nx\nY\n"},
		},
		{
			name: "E101_eof_chunk_before_previous_window_overlaps", files: map[string]string{"a.txt": "a\nb\nc\n"},
			patch: apText("*** Update File: a.txt", "@@", "-c", "+C", "@@", " b", "-c", "+D", "*** End of File"),
			kind:  patch.KindOverlap, msg: []string{"Overlapping patch chunks in a.txt: chunks 1 and 2"},
		},
		{
			name: "E102_ambiguity_at_first_loose_level_is_final", files: map[string]string{"a.txt": "foo \nfoo\t\n\u201cfoo\u201d\n"},
			patch: apText("*** Update File: a.txt", "@@", "-foo  ", "+bar"),
			kind:  patch.KindAmbiguous, msg: []string{"compared with trim-end"},
		},
		{
			// Changed by the amendment: only compat mode takes the first of two exact hits
			// (E132–E134 cover the default mode).
			name: "E103_exact_twice_first_wins", files: map[string]string{"a.txt": "x\ndup\ny\ndup\n"}, opts: compat,
			patch: apText("*** Update File: a.txt", "@@", "-dup", "+DUP"), want: map[string]string{"a.txt": "x\nDUP\ny\ndup\n"},
		},
		{
			name: "E104_prefix_suffix_span_bound", files: map[string]string{"a.py": far.String()},
			patch: apText("*** Update File: a.py", "@@", ` print("a")`, "-value = 2", "+value = 3", " end"),
			kind:  patch.KindNotFound,
		},
		{
			name: "E109_no_similar_lines", files: map[string]string{"a.txt": "one\ntwo\nthree\n"},
			patch: apText("*** Update File: a.txt", "@@", " one", "+1", "@@", "-zzz", "+q"),
			kind:  patch.KindNotFound, msg: []string{"Failed to find expected lines in a.txt:\nzzz\nNo similar lines found in file lines 2-3."},
		},
		{
			name: "E109_empty_file", files: map[string]string{"a.txt": ""},
			patch: apText("*** Update File: a.txt", "@@", "-zzz", "+q"),
			kind:  patch.KindNotFound, msg: []string{"zzz\nThe file is empty."},
		},
		{
			name: "E115_dotdot_prefixed_name_inside", files: map[string]string{"..cache/x.txt": "a\n"},
			patch: apText("*** Update File: ..cache/x.txt", "@@", "-a", "+b"), want: map[string]string{"..cache/x.txt": "b\n"},
		},
		{
			name: "E119_default_scenario_015_writes_nothing", files: map[string]string{},
			patch: apText("*** Add File: created.txt", "+hello", "*** Update File: missing.txt", "@@", "-old", "+new"),
			kind:  patch.KindMissingFile, msg: []string{"Failed to read file to update missing.txt: file does not exist"},
		},
		{
			name: "E119_compat_scenario_015_keeps_add", files: map[string]string{}, opts: compat,
			patch: apText("*** Add File: created.txt", "+hello", "*** Update File: missing.txt", "@@", "-old", "+new"),
			want:  map[string]string{"created.txt": "hello\n"}, kind: patch.KindMissingFile,
		},
		{
			name: "E120_two_bare_insertions_in_order", files: map[string]string{"a.txt": "a\n"},
			patch: apText("*** Update File: a.txt", "@@", "+x", "@@", "+y"), want: map[string]string{"a.txt": "a\nx\ny\n"},
		},
		{
			name: "E121_deletion_only_chunk", files: map[string]string{"a.txt": "a\nx\nb\n"},
			patch: apText("*** Update File: a.txt", "@@", "-x"), want: map[string]string{"a.txt": "a\nb\n"},
		},
		{
			name: "E124_file_too_large", files: map[string]string{"a.txt": big},
			opts:  []patch.Option{patch.WithMaxFileSize(int64(len(big)) - 1)},
			patch: apText("*** Update File: a.txt", "@@", "-x", "+y"),
			kind:  patch.KindTooLarge, msg: []string{"File too large to patch: a.txt (12 bytes; the limit is 11 bytes)"},
		},
		{
			name: "E124_file_at_limit_accepted", files: map[string]string{"a.txt": big},
			opts:  []patch.Option{patch.WithMaxFileSize(int64(len(big)))},
			patch: apText("*** Update File: a.txt", "@@", "-x", "+y", " x", " x", " x", " x", " x", "*** End of File"), want: map[string]string{"a.txt": "y\n" + big[2:]},
		},
		{
			name: "E124_add_over_limit_refused_at_plan", files: map[string]string{},
			opts:  []patch.Option{patch.WithMaxFileSize(5)},
			patch: apText("*** Add File: n.txt", "+12345"),
			kind:  patch.KindTooLarge, msg: []string{"File too large to patch: n.txt (6 bytes; the limit is 5 bytes)"},
		},
		{
			name: "E124_add_at_limit_accepted", files: map[string]string{},
			opts:  []patch.Option{patch.WithMaxFileSize(6)},
			patch: apText("*** Add File: n.txt", "+12345"), want: map[string]string{"n.txt": "12345\n"},
		},
		{
			name: "E124_add_under_limit_accepted", files: map[string]string{},
			opts:  []patch.Option{patch.WithMaxFileSize(7)},
			patch: apText("*** Add File: n.txt", "+12345"), want: map[string]string{"n.txt": "12345\n"},
		},
		{
			name: "E124_delete_over_limit_works", files: map[string]string{"a.txt": big},
			opts:  []patch.Option{patch.WithMaxFileSize(int64(len(big)) - 1)},
			patch: apText("*** Delete File: a.txt"), want: map[string]string{},
		},
		{
			name: "E124_update_grown_past_limit_by_edit_refused", files: map[string]string{"a.txt": "x\n"},
			opts:  []patch.Option{patch.WithMaxFileSize(4)},
			patch: apText("*** Update File: a.txt", "@@", "-x", "+xxxxx"),
			kind:  patch.KindTooLarge, msg: []string{"File too large to patch: a.txt (6 bytes; the limit is 4 bytes)"},
		},
		{
			name: "E125_empty_add", files: map[string]string{},
			patch: apText("*** Add File: empty.txt"), want: map[string]string{"empty.txt": ""},
		},
	}
	apRun(t, cases)
}

// TestCommitEdgeCases covers planning/commit interplay: cumulative plans, injected faults and
// rollback, modes, and concurrent edits between Plan and Commit.
func TestCommitEdgeCases(t *testing.T) {
	ctx := context.Background()
	p := func(name string) string { return filepath.Join(apRoot, name) }
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{name: "E68_plan_of_two_sections_is_cumulative", run: func(t *testing.T) {
			m := apTree(t, map[string]string{"a.txt": "one\ntwo\n"})
			a, _ := patch.New(m, apRoot)
			pl, err := a.Plan(ctx, apText("*** Update File: a.txt", "@@", "-one", "+ONE", "*** Update File: a.txt", "@@", "-two", "+TWO"))
			if err != nil {
				t.Fatal(err)
			}
			if len(pl.Changes) != 1 || pl.Changes[0].Op != patch.Modified || string(pl.Changes[0].After) != "ONE\nTWO\n" {
				t.Fatalf("changes = %+v, want one Modified with the cumulative text", pl.Changes)
			}
			if _, err := a.Commit(ctx, pl); err != nil {
				t.Fatal(err)
			}
			if got := apFiles(m)["a.txt"]; got != "ONE\nTWO\n" {
				t.Errorf("a.txt = %q", got)
			}
		}},
		{name: "E69_second_write_fails_first_restored", run: func(t *testing.T) {
			m := apTree(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
			if err := m.Chmod(p("a.txt"), 0o600); err != nil {
				t.Fatal(err)
			}
			before := m.Tree()
			a, _ := patch.New(m, apRoot)
			m.InjectFault(func(op, name string) bool { return op == "rename" && name == p("b.txt") }, errors.New("disk full"))
			_, err := a.Apply(ctx, apText("*** Update File: a.txt", "@@", "-a", "+A", "*** Update File: b.txt", "@@", "-b", "+B"))
			pe := apErr(err)
			if pe == nil || pe.Kind != patch.KindIO || !strings.Contains(pe.Msg, "Failed to apply changes; rolled back: ") {
				t.Fatalf("err = %v, want KindIO rolled back", err)
			}
			if diff := treeDiff(before, m.Tree()); diff != "" {
				t.Errorf("tree changed after rollback:\n%s", diff)
			}
		}},
		{name: "E69_parent_is_regular_file_conflict_at_plan", run: func(t *testing.T) {
			m := apTree(t, map[string]string{"f.txt": "x\n"})
			a, _ := patch.New(m, apRoot)
			m.ResetCalls()
			_, err := a.Apply(ctx, apText("*** Add File: f.txt/child.txt", "+c"))
			if pe := apErr(err); pe == nil || pe.Kind != patch.KindPathConflict || !strings.Contains(pe.Msg, "Cannot create f.txt/child.txt: f.txt is not a directory") {
				t.Fatalf("err = %v, want PathConflict", err)
			}
			if calls := m.Calls(); len(calls) != 0 {
				t.Errorf("mutating calls = %v, want none", calls)
			}
		}},
		{name: "E70_modes_kept_on_move_and_update", run: func(t *testing.T) {
			// Modes a 022 umask would change (the test could not fail with 0755/0750).
			m := apTree(t, map[string]string{"run.sh": "echo a\n", "x.txt": "x\n"})
			_ = m.Chmod(p("run.sh"), 0o775)
			_ = m.Chmod(p("x.txt"), 0o664)
			a, _ := patch.New(m, apRoot)
			if _, err := a.Apply(ctx, apText("*** Update File: run.sh", "*** Move to: bin/run.sh", "@@", "-echo a", "+echo b", "*** Update File: x.txt", "@@", "-x", "+y")); err != nil {
				t.Fatal(err)
			}
			tree := m.Tree()
			if e := tree[p("bin/run.sh")]; e.Mode != 0o775 {
				t.Errorf("bin/run.sh mode = %v, want 0775", e.Mode)
			}
			if e := tree[p("x.txt")]; e.Mode != 0o664 {
				t.Errorf("x.txt mode = %v, want 0664", e.Mode)
			}
		}},
		{name: "E71_source_deleted_after_plan_changed", run: func(t *testing.T) {
			m := apTree(t, map[string]string{"a.txt": "a\n"})
			a, _ := patch.New(m, apRoot)
			pl, err := a.Plan(ctx, apText("*** Update File: a.txt", "@@", "-a", "+b"))
			if err != nil {
				t.Fatal(err)
			}
			_ = m.Remove(p("a.txt"))
			_, err = a.Commit(ctx, pl)
			if pe := apErr(err); pe == nil || pe.Kind != patch.KindChanged {
				t.Fatalf("err = %v, want KindChanged", err)
			}
			if len(apFiles(m)) != 0 {
				t.Errorf("files = %v, want none written", apFiles(m))
			}
		}},
		{name: "E71_delete_then_update_missing_at_plan", run: func(t *testing.T) {
			m := apTree(t, map[string]string{"a.txt": "a\n"})
			a, _ := patch.New(m, apRoot)
			_, err := a.Plan(ctx, apText("*** Delete File: a.txt", "*** Update File: a.txt", "@@", "-a", "+b"))
			if pe := apErr(err); pe == nil || pe.Kind != patch.KindMissingFile {
				t.Fatalf("err = %v, want MissingFile", err)
			}
		}},
		{name: "E71_plan_of_another_applier_invalid", run: func(t *testing.T) {
			m := apTree(t, map[string]string{"a.txt": "a\n"})
			a, _ := patch.New(m, apRoot)
			b, _ := patch.New(m, apRoot)
			pl, err := a.Plan(ctx, apText("*** Update File: a.txt", "@@", "-a", "+b"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = b.Commit(ctx, pl)
			if pe := apErr(err); pe == nil || pe.Kind != patch.KindInvalid {
				t.Fatalf("err = %v, want KindInvalid", err)
			}
		}},
		{name: "E72_crlf_rescued_and_exact_chunks", run: func(t *testing.T) {
			m := apTree(t, map[string]string{"a.txt": "h\r\nx\r\nstale\r\ny\r\nz\r\n"})
			a, _ := patch.New(m, apRoot)
			// Changed by the amendment: the stale line is a drifted context line between two
			// removed lines (a removed line that differs is refused).
			m = apTree(t, map[string]string{"a.txt": "h\r\nx\r\nq\r\nstale line\r\nold\r\ny\r\nz\r\n"})
			a, _ = patch.New(m, apRoot)
			res, err := a.Apply(ctx, apText("*** Update File: a.txt", "@@", " x", "-q", " stale lines", "-old", "+new", " y", "@@", "-z", "+Z"))
			if err != nil {
				t.Fatal(err)
			}
			if got := apFiles(m)["a.txt"]; got != "h\r\nx\r\nstale line\r\nnew\r\ny\r\nZ\r\n" {
				t.Errorf("a.txt = %q", got)
			}
			if s := apStrategies(res); len(s) != 2 || s[0] != patch.StrategyPrefixSuffix || s[1] != patch.StrategyExact {
				t.Errorf("strategies = %v", s)
			}
		}},
		{name: "E110_edit_between_plan_and_commit_survives", run: func(t *testing.T) {
			m := apTree(t, map[string]string{"a.txt": "a\n"})
			a, _ := patch.New(m, apRoot)
			pl, err := a.Plan(ctx, apText("*** Update File: a.txt", "@@", "-a", "+b"))
			if err != nil {
				t.Fatal(err)
			}
			_ = m.WriteFile(p("a.txt"), []byte("concurrent\n"), 0o644)
			_, err = a.Commit(ctx, pl)
			if pe := apErr(err); pe == nil || pe.Kind != patch.KindChanged || !strings.Contains(pe.Msg, "File changed on disk since the patch was planned: a.txt") {
				t.Fatalf("err = %v, want KindChanged", err)
			}
			if got := apFiles(m); len(got) != 1 || got["a.txt"] != "concurrent\n" {
				t.Errorf("files = %q, want only the concurrent edit and no temporaries", got)
			}
		}},
		{name: "E111_add_target_created_meanwhile", run: func(t *testing.T) {
			m := apTree(t, map[string]string{})
			a, _ := patch.New(m, apRoot)
			pl, err := a.Plan(ctx, apText("*** Add File: n.txt", "+mine"))
			if err != nil {
				t.Fatal(err)
			}
			_ = m.WriteFile(p("n.txt"), []byte("theirs\n"), 0o644)
			_, err = a.Commit(ctx, pl)
			if pe := apErr(err); pe == nil || pe.Kind != patch.KindChanged {
				t.Fatalf("err = %v, want KindChanged", err)
			}
			if got := apFiles(m)["n.txt"]; got != "theirs\n" {
				t.Errorf("n.txt = %q, want theirs", got)
			}
		}},
		{name: "E117_cancelled_context", run: func(t *testing.T) {
			m := apTree(t, map[string]string{"a.txt": "a\n"})
			a, _ := patch.New(m, apRoot)
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			_, err := a.Apply(cctx, apText("*** Update File: a.txt", "@@", "-a", "+b"))
			if pe := apErr(err); pe == nil || pe.Kind != patch.KindIO || !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want KindIO wrapping context.Canceled", err)
			}
			if got := apFiles(m)["a.txt"]; got != "a\n" {
				t.Errorf("a.txt = %q", got)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, tc.run)
	}
}

// treeDiff compares two MemFS trees and describes the first differences.
func treeDiff(a, b map[string]wfs.Entry) string {
	var out []string
	for k, e := range a {
		f, ok := b[k]
		switch {
		case !ok:
			out = append(out, "missing "+k)
		case e.Dir != f.Dir || e.Symlink != f.Symlink || string(e.Data) != string(f.Data) || e.Mode != f.Mode || e.Target != f.Target:
			out = append(out, "changed "+k+": "+string(e.Data)+" → "+string(f.Data))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, "extra "+k)
		}
	}
	return strings.Join(out, "\n")
}

// TestPathEdgeCases covers containment, worktrees, In, symlinks and hard links.
func TestPathEdgeCases(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{name: "E32_in_dir_resolves_source_and_move", run: func(t *testing.T) {
			m := apTree(t, map[string]string{"dir/a.txt": "a\n"})
			a, _ := patch.New(m, apRoot)
			in, err := a.In("dir")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := in.Apply(ctx, apText("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+b")); err != nil {
				t.Fatal(err)
			}
			if got := apFiles(m); len(got) != 1 || got["dir/b.txt"] != "b\n" {
				t.Errorf("files = %v, want dir/b.txt", got)
			}
			if _, err := a.In("/elsewhere"); apErr(err) == nil || apErr(err).Kind != patch.KindBlocked {
				t.Errorf("In outside = %v, want Blocked", err)
			}
		}},
		{name: "E58_absolute_inside_root_rendered_relative", run: func(t *testing.T) {
			m := apTree(t, map[string]string{"a.txt": "x\nold\ny\n"})
			a, _ := patch.New(m, apRoot)
			text := apText("*** Update File: "+filepath.Join(apRoot, "a.txt"), "@@", " x", "-old  ", "+new", " y")
			rw, err := a.Rewrite(ctx, text)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(rw.Text, "*** Update File: a.txt\n") {
				t.Errorf("rewrite = %q, want a relative path", rw.Text)
			}
			pl, err := a.Plan(ctx, text)
			if err != nil || pl.Changes[0].Abs != filepath.Join(apRoot, "a.txt") {
				t.Errorf("plan = %+v, %v; want Abs absolute", pl, err)
			}
		}},
		{name: "E59_worktree_sibling_rendered_dotdot", run: func(t *testing.T) {
			m := wfs.NewMemFS()
			_ = m.MkdirAll(testenv.Abs("/w/tree/sub"), 0o755)
			_ = m.WriteFile(testenv.Abs("/w/tree/shared.txt"), []byte("s\n"), 0o644)
			a, err := patch.New(m, testenv.Abs("/w/tree/sub"), patch.WithWorktrees(testenv.Abs("/w/tree")))
			if err != nil {
				t.Fatal(err)
			}
			rw, err := a.Rewrite(ctx, apText("*** Update File: /w/tree/shared.txt", "@@", "-s", "+S"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(rw.Text, "*** Update File: ../shared.txt\n") {
				t.Errorf("rewrite = %q", rw.Text)
			}
			if _, err := a.Apply(ctx, apText("*** Update File: /w/tree/shared.txt", "@@", "-s", "+S")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "E60_absolute_outside_blocked_or_passed", run: func(t *testing.T) {
			m := apTree(t, map[string]string{"a.txt": "a\n"})
			_ = m.MkdirAll(testenv.Abs("/etc"), 0o755)
			_ = m.WriteFile(testenv.Abs("/etc/passwd"), []byte("root\n"), 0o644)
			a, _ := patch.New(m, apRoot)
			text := apText("*** Update File: /etc/passwd", "@@", "-root", "+evil")
			_, err := a.Apply(ctx, text)
			if pe := apErr(err); pe == nil || pe.Kind != patch.KindBlocked || pe.Msg != "patch contains path outside workspace root: /etc/passwd" {
				t.Fatalf("err = %v", err)
			}
			pa, _ := patch.New(m, apRoot, patch.WithOutsidePolicy(patch.PassThrough))
			m.ResetCalls()
			res, err := pa.Apply(ctx, text)
			if err != nil || !res.PassedThrough {
				t.Fatalf("pass-through apply = %+v, %v", res, err)
			}
			rw, err := pa.Rewrite(ctx, text)
			if err != nil || !rw.PassedThrough || rw.Text != text || rw.Changed {
				t.Fatalf("pass-through rewrite = %+v, %v", rw, err)
			}
			if len(m.Calls()) != 0 {
				t.Errorf("mutating calls = %v", m.Calls())
			}
		}},
		{name: "E73_symlinked_dir_outside_blocked", run: func(t *testing.T) {
			m := apTree(t, map[string]string{"a.txt": "a\n"})
			_ = m.MkdirAll("/outside", 0o755)
			_ = m.Symlink("/outside", filepath.Join(apRoot, "linked-outside"))
			a, _ := patch.New(m, apRoot)
			for _, text := range []string{
				apText("*** Add File: linked-outside/missing/child.txt", "+x"),
				apText("*** Update File: a.txt", "*** Move to: linked-outside/missing/child.txt", "@@", "-a", "+b"),
			} {
				if _, err := a.Apply(ctx, text); apErr(err) == nil || apErr(err).Kind != patch.KindBlocked {
					t.Errorf("err = %v, want Blocked", err)
				}
			}
		}},
		{name: "E76_unsearchable_directory_fails_closed", run: func(t *testing.T) {
			m := apTree(t, map[string]string{"locked/a.txt": "a\n"})
			_ = m.Chmod(filepath.Join(apRoot, "locked"), 0o000)
			for _, pol := range []patch.OutsidePolicy{patch.Block, patch.PassThrough} {
				a, _ := patch.New(m, apRoot, patch.WithOutsidePolicy(pol))
				_, err := a.Apply(ctx, apText("*** Update File: locked/a.txt", "@@", "-a", "+b"))
				if pe := apErr(err); pe == nil || pe.Kind != patch.KindIO || !strings.Contains(pe.Msg, "Failed to resolve real path: locked/a.txt: ") {
					t.Errorf("policy %v: err = %v, want KindIO resolve failure", pol, err)
				}
			}
		}},
		{name: "E112_symlink_update_and_delete", run: func(t *testing.T) {
			m := apTree(t, map[string]string{"real.txt": "r\n"})
			_ = m.Symlink("real.txt", filepath.Join(apRoot, "l"))
			a, _ := patch.New(m, apRoot)
			if _, err := a.Apply(ctx, apText("*** Update File: l", "@@", "-r", "+R")); err != nil {
				t.Fatal(err)
			}
			tree := m.TreeUnder(apRoot)
			if !tree["l"].Symlink || string(tree["real.txt"].Data) != "R\n" {
				t.Fatalf("tree = %+v", tree)
			}
			if _, err := a.Apply(ctx, apText("*** Delete File: l")); err != nil {
				t.Fatal(err)
			}
			tree = m.TreeUnder(apRoot)
			if _, ok := tree["l"]; ok || string(tree["real.txt"].Data) != "R\n" {
				t.Fatalf("tree after delete = %+v", tree)
			}
		}},
		{name: "E113_dangling_link_outside_blocked", run: func(t *testing.T) {
			m := apTree(t, map[string]string{})
			_ = m.Symlink("/etc/newfile", filepath.Join(apRoot, "dangling"))
			a, _ := patch.New(m, apRoot)
			if _, err := a.Apply(ctx, apText("*** Add File: dangling", "+x")); apErr(err) == nil || apErr(err).Kind != patch.KindBlocked {
				t.Fatalf("err = %v, want Blocked", err)
			}
		}},
		{name: "E114_hard_link_written_in_place", run: func(t *testing.T) {
			// Amended by the write layer: a file with two links is written in place, so
			// both names see the new content and stay one file (it used to be split).
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Link(filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")); err != nil {
				t.Skipf("hard links unavailable: %v", err)
			}
			o, err := wfs.NewOSFS(root)
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			a, _ := patch.New(o, root)
			if _, err := a.Apply(ctx, apText("*** Update File: a.txt", "@@", "-old", "+new")); err != nil {
				t.Fatal(err)
			}
			ga, _ := os.ReadFile(filepath.Join(root, "a.txt"))
			gb, _ := os.ReadFile(filepath.Join(root, "b.txt"))
			if string(ga) != "new\n" || string(gb) != "new\n" {
				t.Errorf("a.txt = %q, b.txt = %q; want both new", ga, gb)
			}
			fa, _ := os.Stat(filepath.Join(root, "a.txt"))
			fb, _ := os.Stat(filepath.Join(root, "b.txt"))
			if !os.SameFile(fa, fb) {
				t.Errorf("the hard link was split")
			}
			if left, _ := filepath.Glob(filepath.Join(root, ".*")); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, tc.run)
	}
}

// TestRewriteEdgeCases covers Rewrite's rendering rules.
func TestRewriteEdgeCases(t *testing.T) {
	ctx := context.Background()
	merge := []patch.Option{patch.WithMergeRepeated(true)}
	cases := []struct {
		name    string
		files   map[string]string
		opts    []patch.Option
		text    string
		want    string // expected Text ("" = the input)
		changed bool
	}{
		{
			name: "E53_canonical_exact_unchanged", files: map[string]string{"a.txt": "one\ntwo\n"},
			text: apText("*** Update File: a.txt", "@@", " one", "-two", "+TWO"),
		},
		{
			name: "E53_canonical_without_final_newline_unchanged", files: map[string]string{"a.txt": "one\ntwo\n"},
			text: strings.TrimSuffix(apText("*** Update File: a.txt", "@@", " one", "-two", "+TWO"), "\n"),
		},
		{
			name: "E54_heredoc_becomes_canonical", files: map[string]string{"a.txt": "one\ntwo\n"},
			text: "<<'EOF'\n" + apText("*** Update File: a.txt", "@@", " one", "-two", "+TWO") + "EOF\n",
			want: apText("*** Update File: a.txt", "@@", " one", "-two", "+TWO"), changed: true,
		},
		{
			name: "E54_crlf_patch_becomes_lf", files: map[string]string{"a.txt": "one\ntwo\n"},
			text: strings.ReplaceAll(apText("*** Update File: a.txt", "@@", " one", "-two", "+TWO"), "\n", "\r\n"),
			want: apText("*** Update File: a.txt", "@@", " one", "-two", "+TWO"), changed: true,
		},
		{
			// Changed by the amendment: the stale line is drifted context (a removed line that
			// differs is refused).
			name: "E55_stale_middle_from_file_bytes", files: map[string]string{"a.txt": "x\nq\nstale text\nold\ny\n"},
			text: apText("*** Update File: a.txt", "@@", " x", "-q", " stale txt", "-old", "+new \t", " y"),
			want: apText("*** Update File: a.txt", "@@", " x", "-q", " stale text", "-old", "+new \t", " y"), changed: true,
		},
		{
			name: "E56_unicode_drift_context_from_file", files: map[string]string{"a.txt": apLQ + "alpha" + apRQ + "\nbeta\n"},
			text: apText("*** Update File: a.txt", "@@", ` "alpha"`, "-beta", "+BETA"),
			want: apText("*** Update File: a.txt", "@@", " "+apLQ+"alpha"+apRQ, "-beta", "+BETA"), changed: true,
		},
		{
			name: "E56_trailing_space_drift_context_from_file", files: map[string]string{"a.txt": "alpha  \nbeta\n"},
			text: apText("*** Update File: a.txt", "@@", " alpha", "-beta", "+BETA"),
			want: apText("*** Update File: a.txt", "@@", " alpha  ", "-beta", "+BETA"), changed: true,
		},
		{
			name: "E49_anchor_rendered_as_real_line", files: map[string]string{"a.txt": "one\nanchor  \ntwo\n"},
			text: apText("*** Update File: a.txt", "@@ anchor", "+middle"),
			want: apText("*** Update File: a.txt", "@@", " anchor  ", "+middle"), changed: true,
		},
		{
			name: "E63_two_sections_kept", files: map[string]string{"a.txt": "alpha\nbeta\ngamma\ndelta\n"},
			text: apText("*** Update File: a.txt", "@@ alpha", " beta", "+BETA", "*** Update File: a.txt", "@@ gamma", "-delta", "+DELTA"),
		},
		{
			name: "E63_merge_two_sections", files: map[string]string{"a.txt": "alpha\nbeta\ngamma\ndelta\n"}, opts: merge,
			text: apText("*** Update File: a.txt", "@@ alpha", "-beta", "+BETA", "*** Update File: a.txt", "@@ gamma", "-delta", "+DELTA"),
			want: apText("*** Update File: a.txt", "@@ alpha", "-beta", "+BETA", "@@ gamma", "-delta", "+DELTA"), changed: true,
		},
		{
			name: "E64_merge_edit_of_edit", files: map[string]string{"a.txt": "alpha\nbeta\n"}, opts: merge,
			text: apText("*** Update File: a.txt", "@@ alpha", "-beta", "+BETA", "*** Update File: a.txt", "@@", "-BETA", "+BETA!"),
			want: apText("*** Update File: a.txt", "@@ alpha", "-beta", "+BETA!"), changed: true,
		},
		{
			name: "E65_merge_add_then_update", files: map[string]string{}, opts: merge,
			text: apText("*** Add File: n.txt", "+one", "+two", "*** Update File: n.txt", "@@", "-two", "+TWO"),
			want: apText("*** Add File: n.txt", "+one", "+TWO"), changed: true,
		},
		{
			name: "E65_merge_add_update_move", files: map[string]string{}, opts: merge,
			text: apText("*** Add File: n.txt", "+one", "*** Update File: n.txt", "*** Move to: m.txt", "@@", "-one", "+ONE"),
			want: apText("*** Add File: m.txt", "+ONE"), changed: true,
		},
		{
			name: "E66_merge_move_then_update_destination", files: map[string]string{"a.txt": "one\ntwo\nthree\n"}, opts: merge,
			text: apText("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-one", "+ONE", "*** Update File: b.txt", "@@ two", "-three", "+THREE"),
			want: apText("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-one", "+ONE", "@@ two", "-three", "+THREE"), changed: true,
		},
		{
			name: "E78_add_verbatim_update_rewritten", files: map[string]string{"a.txt": "x\nold  \ny\n"},
			text: apText("*** Add File: n.txt", "+n", "*** Update File: a.txt", "@@", " x", "-old", "+new", " y"),
			want: apText("*** Add File: n.txt", "+n", "*** Update File: a.txt", "@@", " x", "-old  ", "+new", " y"), changed: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := apTree(t, tc.files)
			a, _ := patch.New(m, apRoot, tc.opts...)
			m.ResetCalls()
			rw, err := a.Rewrite(ctx, tc.text)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == "" {
				want = tc.text
			}
			if rw.Text != want || rw.Changed != tc.changed {
				t.Errorf("Rewrite = %q (changed %v), want %q (changed %v)", rw.Text, rw.Changed, want, tc.changed)
			}
			if len(m.Calls()) != 0 {
				t.Errorf("Rewrite made mutating calls: %v", m.Calls())
			}
		})
	}
}

// TestDiagnosticEdgeCases covers the NotFound message (R48).
func TestDiagnosticEdgeCases(t *testing.T) {
	t.Run("E108_nearest_window", testNearestWindow)
}

func testNearestWindow(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 45; i++ {
		switch i {
		case 40:
			b.WriteString("func f() {\n")
		case 41:
			b.WriteString("\tx := 1\n")
		case 42:
			b.WriteString("\treturn y\n")
		default:
			b.WriteString("line\n")
		}
	}
	m := apTree(t, map[string]string{"a.go": b.String()})
	a, _ := patch.New(m, apRoot, rescue(func(r *patch.RescueOptions) { r.PrefixSuffix, r.LCS = false, false }))
	// Patch lines: 1 Begin, 2 Update, 3 @@, 4 ctx, 5 ctx, 6 removed, 7 removed.
	text := apText("*** Update File: a.go", "@@", " func f() {", " \tx := 1", "-\treturn x", "+\treturn z")
	_, err := a.Apply(context.Background(), text)
	pe := apErr(err)
	if pe == nil || pe.Kind != patch.KindNotFound {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{
		"Closest match starts at file line 40; first difference:",
		"  patch line 6: \treturn x",
		"  file line 42: \treturn y",
	} {
		if !strings.Contains(pe.Msg, want) {
			t.Errorf("message %q lacks %q", pe.Msg, want)
		}
	}
	if pe.Line != 6 || pe.FileLine != 42 {
		t.Errorf("Line, FileLine = %d, %d; want 6, 42", pe.Line, pe.FileLine)
	}
}
