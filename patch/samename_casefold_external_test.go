package patch_test

import (
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// cfCase is one row of the case-insensitive volume table (edge case 91).
type cfCase struct {
	name      string
	sensitive bool              // keep the MemFS case-sensitive (contrast rows)
	files     map[string]string // slash paths under apRoot, mode 0o644 unless modes says otherwise
	modes     map[string]fs.FileMode
	opts      []patch.Option
	patch     string
	// fault, when set, makes the matching mutating call fail (see MemFS.InjectFault).
	fault func(op, name string) bool
	want  map[string]string // files afterwards, by stored spelling; nil = the tree is exactly as before
	kind  patch.Kind        // 0 = success
	msg   []string          // substrings of the error text
	// summary and changes, when set, are the exact Result.Summary and Result.Changes
	// (Op, Path, From only).
	summary string
	changes []cfChange
	check   func(t *testing.T, m *wfs.MemFS, res *patch.Result)
}

type cfChange struct {
	Op         patch.ChangeOp
	Path, From string
}

// cfTree builds a MemFS (case-insensitive unless sensitive) holding files under apRoot.
func cfTree(t *testing.T, sensitive bool, files map[string]string, modes map[string]fs.FileMode) *wfs.MemFS {
	t.Helper()
	m := wfs.NewMemFS()
	m.SetCaseInsensitive(!sensitive)
	if err := m.MkdirAll(apRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	for rel, data := range files {
		p := filepath.Join(apRoot, filepath.FromSlash(rel))
		if err := m.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := fs.FileMode(0o644)
		if v, ok := modes[rel]; ok {
			mode = v
		}
		if err := m.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := m.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func cfRun(t *testing.T, cases []cfCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := cfTree(t, tc.sensitive, tc.files, tc.modes)
			before := m.Tree()
			a, err := patch.New(m, apRoot, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if tc.fault != nil {
				m.InjectFault(tc.fault, syscall.EIO)
			}
			res, err := a.Apply(context.Background(), tc.patch)
			if tc.want == nil {
				if diff := cmp.Diff(before, m.Tree()); diff != "" {
					t.Errorf("tree after Apply (-before +after):\n%s\nerr: %v", diff, err)
				}
			} else if diff := cmp.Diff(tc.want, apFiles(m)); diff != "" {
				t.Errorf("files after Apply (-want +got):\n%s\nerr: %v", diff, err)
			}
			if tc.kind != 0 {
				pe := apErr(err)
				if pe == nil || pe.Kind != tc.kind {
					t.Fatalf("Apply error = %v, want kind %v", err, tc.kind)
				}
				for _, s := range tc.msg {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err.Error(), s)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if tc.summary != "" && res.Summary != tc.summary {
				t.Errorf("summary = %q, want %q", res.Summary, tc.summary)
			}
			if tc.changes != nil {
				var got []cfChange
				for _, c := range res.Changes {
					got = append(got, cfChange{Op: c.Op, Path: c.Path, From: c.From})
				}
				if diff := cmp.Diff(tc.changes, got); diff != "" {
					t.Errorf("changes (-want +got):\n%s", diff)
				}
			}
			if tc.check != nil {
				tc.check(t, m, res)
			}
		})
	}
}

// TestCaseOnlyRename covers edge case 91 — a case-only rename on a case-insensitive volume
// renames the file and gives it the new content — with the commit's fault handling at every
// step, and the sections that follow such a rename in the same patch.
func TestCaseOnlyRename(t *testing.T) {
	p := func(rel string) string { return filepath.Join(apRoot, filepath.FromSlash(rel)) }
	rename := apText("*** Update File: Readme.md", "*** Move to: README.md", "@@", "-old", "+new")
	one := map[string]string{"Readme.md": "keep\nold\n"}
	renamed := map[string]string{"README.md": "keep\nnew\n"}
	moved := []cfChange{{Op: patch.Moved, Path: "README.md", From: "Readme.md"}}
	isTemp := func(name, base string) bool {
		return strings.HasPrefix(filepath.Base(name), "."+base+".") && strings.HasSuffix(name, ".tmp")
	}
	isAside := func(name, base string) bool {
		return strings.HasPrefix(filepath.Base(name), "."+base+".") && strings.HasSuffix(name, ".old")
	}
	cases := []cfCase{
		{
			name: "E91_case_only_rename_new_spelling_and_content", files: one, patch: rename,
			want: renamed, summary: "Success. Updated the following files:\nM README.md\n", changes: moved,
		},
		{
			name: "E91_compat_mode_renames_too_never_deletes", files: one, patch: rename,
			opts: []patch.Option{patch.WithCodexCompat()},
			want: renamed, summary: "Success. Updated the following files:\nM README.md\n", changes: moved,
		},
		{
			name: "E91_overwrite_option_renames_too", files: one, patch: rename,
			opts: []patch.Option{patch.WithOverwrite(true)}, want: renamed, changes: moved,
		},
		{
			name: "E91_source_mode_kept", files: one, modes: map[string]fs.FileMode{"Readme.md": 0o750}, patch: rename,
			want: renamed,
			check: func(t *testing.T, m *wfs.MemFS, _ *patch.Result) {
				if got := m.Tree()[p("README.md")].Mode; got != 0o750 {
					t.Errorf("README.md mode = %v, want 0750", got)
				}
			},
		},
		{
			name: "E91_source_set_aside_before_new_name_is_written", files: one, patch: rename, want: renamed,
			check: func(t *testing.T, m *wfs.MemFS, _ *patch.Result) {
				// The mutating calls on the two names and their temporaries, in order: keep
				// the user's file aside (a hard link), stage the new content, remove the old
				// spelling, link the staged file in as README.md (a link never replaces
				// anything), drop the staged name, drop the kept link. The user's file has a
				// name at every step, and nothing is written onto README.md while Readme.md
				// still leads to it. (Journal and sync calls are left out.)
				var got []string
				for _, c := range m.Calls() {
					switch {
					case c.Op == "open" && isTemp(c.Name, "README.md"):
						got = append(got, "stage")
					case c.Op == "link" && c.Name == p("Readme.md") && isAside(c.Name2, "Readme.md"):
						got = append(got, "aside")
					case c.Op == "remove" && c.Name == p("Readme.md"):
						got = append(got, "remove old spelling")
					case c.Op == "link" && isTemp(c.Name, "README.md") && c.Name2 == p("README.md"):
						got = append(got, "switch")
					case c.Op == "remove" && isTemp(c.Name, "README.md"):
						got = append(got, "drop staged name")
					case c.Op == "remove" && isAside(c.Name, "Readme.md"):
						got = append(got, "cleanup")
					case c.Op == "chmod", c.Op == "sync", strings.Contains(c.Name, wfs.JournalDir):
					default:
						got = append(got, "unexpected "+c.Op+" "+c.Name+" "+c.Name2)
					}
				}
				if diff := cmp.Diff([]string{"aside", "stage", "remove old spelling", "switch", "drop staged name", "cleanup"}, got); diff != "" {
					t.Errorf("commit calls (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "E91_nested_directory_spelled_differently", files: map[string]string{"docs/Readme.md": "old\n"},
			patch:   apText("*** Update File: docs/Readme.md", "*** Move to: Docs/README.md", "@@", "-old", "+new"),
			want:    map[string]string{"docs/README.md": "new\n"},
			changes: []cfChange{{Op: patch.Moved, Path: "Docs/README.md", From: "docs/Readme.md"}},
		},
		{
			name: "E91_later_section_sees_new_spelling", files: one,
			patch: apText("*** Update File: Readme.md", "*** Move to: README.md", "@@", "-old", "+new",
				"*** Update File: README.md", "@@", "-keep", "+KEEP"),
			want: map[string]string{"README.md": "KEEP\nnew\n"}, changes: moved,
		},
		{
			name: "E91_later_section_old_spelling_is_the_same_file", files: one,
			patch: apText("*** Update File: Readme.md", "*** Move to: README.md", "@@", "-old", "+new",
				"*** Update File: readme.MD", "@@", "-keep", "+KEEP"),
			want: map[string]string{"README.md": "KEEP\nnew\n"}, changes: moved,
		},
		{
			name: "E91_add_under_old_spelling_after_rename_exists", files: one,
			patch: apText("*** Update File: Readme.md", "*** Move to: README.md", "@@", "-old", "+new",
				"*** Add File: Readme.md", "+other"),
			kind: patch.KindExists, msg: []string{"Add File target already exists: Readme.md"},
		},
		{
			name: "E91_rename_then_delete_is_a_delete", files: one,
			patch: apText("*** Update File: Readme.md", "*** Move to: README.md", "@@", "-old", "+new",
				"*** Delete File: README.md"),
			want: map[string]string{}, summary: "Success. Updated the following files:\nD Readme.md\n",
			changes: []cfChange{{Op: patch.Deleted, Path: "Readme.md"}},
		},
		{
			name: "E91_rename_then_move_elsewhere", files: one,
			patch: apText("*** Update File: Readme.md", "*** Move to: README.md", "@@", "-old", "+new",
				"*** Update File: README.md", "*** Move to: docs/intro.md", "@@", "-keep", "+KEEP"),
			want:    map[string]string{"docs/intro.md": "KEEP\nnew\n"},
			changes: []cfChange{{Op: patch.Moved, Path: "docs/intro.md", From: "Readme.md"}},
		},
		{
			name: "E91_two_case_renames_in_a_row", files: one,
			patch: apText("*** Update File: Readme.md", "*** Move to: README.md", "@@", "-old", "+new",
				"*** Update File: README.md", "*** Move to: readme.md", "@@", "-keep", "+KEEP"),
			want:    map[string]string{"readme.md": "KEEP\nnew\n"},
			changes: []cfChange{{Op: patch.Moved, Path: "readme.md", From: "Readme.md"}},
		},
		{
			name: "E91_rename_back_to_the_same_spelling_is_in_place", files: one,
			patch: apText("*** Update File: Readme.md", "*** Move to: README.md", "@@", "-old", "+new",
				"*** Update File: README.md", "*** Move to: README.md", "@@", "-keep", "+KEEP"),
			want: map[string]string{"README.md": "KEEP\nnew\n"}, changes: moved,
		},
		{
			// Both spellings lead to one overlay entry, so the second section sees the first
			// section's edit, and the move onto the spelling already used is in place.
			name: "E91_earlier_section_under_new_spelling_is_one_file", files: one,
			patch: apText("*** Update File: README.md", "@@", "-keep", "+KEEP",
				"*** Update File: Readme.md", "*** Move to: README.md", "@@", "-old", "+new"),
			want: map[string]string{"README.md": "KEEP\nnew\n"},
		},
		{
			name: "E91_two_spellings_updated_in_one_patch", files: one,
			patch: apText("*** Update File: Readme.md", "@@", "-keep", "+KEEP",
				"*** Update File: README.md", "@@", "-old", "+new"),
			want: map[string]string{"Readme.md": "KEEP\nnew\n"}, changes: []cfChange{{Op: patch.Modified, Path: "Readme.md"}},
		},
		{
			name: "E91_same_spelling_stays_in_place", files: one,
			patch:   apText("*** Update File: Readme.md", "*** Move to: ./Readme.md", "@@", "-old", "+new"),
			want:    map[string]string{"Readme.md": "keep\nnew\n"},
			changes: []cfChange{{Op: patch.Modified, Path: "Readme.md"}},
		},
		{
			name: "E91_fault_staging_open", files: one, patch: rename,
			fault: func(op, name string) bool { return op == "open" && isTemp(name, "README.md") },
			kind:  patch.KindIO, msg: []string{"Failed to apply changes; rolled back: "},
		},
		{
			name: "E91_fault_keeping_source_aside", files: one, patch: rename,
			fault: func(op, name string) bool { return op == "link" && isAside(name, "Readme.md") },
			kind:  patch.KindIO, msg: []string{"Failed to apply changes; rolled back: "},
		},
		{
			name: "E91_fault_linking_new_content_into_place", files: one, patch: rename,
			fault: func(op, name string) bool { return op == "link" && name == p("README.md") },
			kind:  patch.KindIO, msg: []string{"Failed to apply changes; rolled back: "},
		},
		{
			name: "E91_fault_removing_old_spelling", files: one, patch: rename,
			fault: func(op, name string) bool { return op == "remove" && name == p("Readme.md") },
			kind:  patch.KindIO, msg: []string{"Failed to apply changes; rolled back: "},
		},
		{
			name: "E91_compat_fault_linking_new_content_into_place", files: one, patch: rename,
			opts:  []patch.Option{patch.WithCodexCompat()},
			fault: func(op, name string) bool { return op == "link" && name == p("README.md") },
			kind:  patch.KindIO, msg: []string{"Failed to apply changes; rolled back: "},
		},
		{
			name: "E91_fault_second_file_after_rename", files: map[string]string{"Readme.md": "keep\nold\n", "b.txt": "b\n"},
			patch: apText("*** Update File: Readme.md", "*** Move to: README.md", "@@", "-old", "+new",
				"*** Update File: b.txt", "@@", "-b", "+B"),
			fault: func(op, name string) bool { return op == "rename" && name == p("b.txt") },
			kind:  patch.KindIO, msg: []string{"Failed to apply changes; rolled back: "},
		},
		{
			// A random source that repeats itself gives the staged README.md temporary and
			// the aside of Readme.md the same random part: their suffixes (".tmp", ".old")
			// still tell them apart on this volume, and the rename goes through.
			name: "E91_repeating_random_names_still_distinct", files: one, patch: rename,
			opts: []patch.Option{patch.WithRandom(bytes.NewReader(bytes.Repeat([]byte{7, 1, 2, 3}, 100)))},
			want: renamed, changes: moved,
		},
		{
			// Two new names that differ only in case, with a random source that repeats
			// itself: their temporaries would be one file on this volume; the commit
			// refuses before it writes anything.
			name: "E91_colliding_temporary_names_refused", files: map[string]string{},
			patch: apText("*** Add File: B.txt", "+one", "*** Add File: b.TXT", "+two"),
			opts:  []patch.Option{patch.WithRandom(bytes.NewReader(bytes.Repeat([]byte{7, 1, 2, 3}, 100)))},
			kind:  patch.KindIO, msg: []string{"no free temporary name next to"},
		},
		{
			name: "E91_contrast_case_sensitive_volume_is_a_plain_move", sensitive: true, files: one, patch: rename,
			want: renamed, changes: moved,
		},
		{
			name: "E91_contrast_case_sensitive_both_exist", sensitive: true,
			files: map[string]string{"Readme.md": "keep\nold\n", "README.md": "other\n"}, patch: rename,
			kind: patch.KindExists, msg: []string{"Move destination already exists: README.md"},
		},
	}
	cfRun(t, cases)
}

// TestCaseOnlyRenamePlanCommit covers the plan/commit split of a case-only rename: an edit
// between the two is detected, and Rewrite does not hand a Codex-like host a move onto the
// same file (which such a host would turn into a delete).
func TestCaseOnlyRenamePlanCommit(t *testing.T) {
	ctx := context.Background()
	p := func(rel string) string { return filepath.Join(apRoot, rel) }
	rename := apText("*** Update File: Readme.md", "*** Move to: README.md", "@@", "-old", "+new")
	cases := []struct {
		name string
		run  func(t *testing.T, m *wfs.MemFS, a *patch.Applier)
	}{
		{name: "E91_edit_between_plan_and_commit_changed", run: func(t *testing.T, m *wfs.MemFS, a *patch.Applier) {
			pl, err := a.Plan(ctx, rename)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.WriteFile(p("Readme.md"), []byte("theirs\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = a.Commit(ctx, pl)
			if pe := apErr(err); pe == nil || pe.Kind != patch.KindChanged {
				t.Fatalf("err = %v, want KindChanged", err)
			}
			if diff := cmp.Diff(map[string]string{"Readme.md": "theirs\n"}, apFiles(m)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		}},
		{name: "E91_plan_reports_move_and_writes_nothing", run: func(t *testing.T, m *wfs.MemFS, a *patch.Applier) {
			m.ResetCalls()
			pl, err := a.Plan(ctx, rename)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Calls()) != 0 {
				t.Errorf("planning made mutating calls: %v", m.Calls())
			}
			if len(pl.Changes) != 1 || pl.Changes[0].Op != patch.Moved || pl.Changes[0].Abs != p("README.md") ||
				pl.Changes[0].FromAbs != p("Readme.md") || string(pl.Changes[0].After) != "keep\nnew\n" {
				t.Errorf("changes = %+v, want one move Readme.md → README.md", pl.Changes)
			}
		}},
		{name: "E91_rewrite_drops_the_move_onto_the_same_file", run: func(t *testing.T, m *wfs.MemFS, a *patch.Applier) {
			rw, err := a.Rewrite(ctx, rename)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(rw.Text, "*** Move to:") || !strings.Contains(rw.Text, "*** Update File: Readme.md") {
				t.Errorf("rewrite text = %q, want an in-place update of Readme.md", rw.Text)
			}
			if diff := cmp.Diff(map[string]string{"Readme.md": "keep\nold\n"}, apFiles(m)); diff != "" {
				t.Errorf("Rewrite wrote (-want +got):\n%s", diff)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := cfTree(t, false, map[string]string{"Readme.md": "keep\nold\n"}, nil)
			a, err := patch.New(m, apRoot)
			if err != nil {
				t.Fatal(err)
			}
			tc.run(t, m, a)
		})
	}
}
