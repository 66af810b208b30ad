package patch_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// The non-atomic mode (WithAtomic(false), part of WithCodexCompat) must do what applying the
// sections one at a time does, each as a patch of its own, stopping at the first that fails:
// sectionModel is that reference, built from the atomic applier alone.

// naTree is the starting state of one non-atomic check.
type naTree struct {
	files map[string]string
	umask fs.FileMode // 0: the MemFS default (022)
	fold  bool        // a case-insensitive volume
	setup func(m *wfs.MemFS)
}

// naT is what these checks need of a *testing.T or a *rapid.T.
type naT interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

func (tr naTree) build(t naT) *wfs.MemFS {
	t.Helper()
	m := wfs.NewMemFS()
	m.SetCaseInsensitive(tr.fold)
	for rel, data := range tr.files {
		p := filepath.Join(apRoot, filepath.FromSlash(rel))
		if err := m.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := m.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.MkdirAll(apRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	if tr.umask != 0 {
		m.SetUmask(tr.umask)
	}
	if tr.setup != nil {
		tr.setup(m)
	}
	return m
}

// sectionModel applies p's sections to m one at a time, each as a patch of its own with the
// atomic applier, and stops at the first that fails: it returns that error and the 1-based
// section (0 when every section applied).
func sectionModel(t naT, m *wfs.MemFS, p *patch.Patch, opts []patch.Option) (error, int) {
	t.Helper()
	for i, h := range p.Hunks {
		a, err := patch.New(m, apRoot, append(slices.Clone(opts), patch.WithAtomic(true))...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.ApplyPatch(context.Background(), &patch.Patch{Hunks: []patch.Hunk{h}}); err != nil {
			return err, i + 1
		}
	}
	return nil, 0
}

// naCompare applies text in non-atomic mode (opts must turn atomicity off) and checks it
// against the section model and, when every section applies, against the atomic applier on
// the whole patch (same files, same Result). It returns the non-atomic error.
func naCompare(t naT, tr naTree, text string, opts []patch.Option) error {
	t.Helper()
	ctx := context.Background()
	p, err := patch.Parse(text)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	m := tr.build(t)
	a, err := patch.New(m, apRoot, opts...)
	if err != nil {
		t.Fatal(err)
	}
	res, gotErr := a.ApplyPatch(ctx, p)

	mm := tr.build(t)
	wantErr, failed := sectionModel(t, mm, p, opts)
	if diff := cmp.Diff(mm.TreeUnder(apRoot), m.TreeUnder(apRoot)); diff != "" {
		t.Fatalf("tree (-section model +non-atomic):\n%s\nnon-atomic error: %v\nmodel error (section %d): %v", diff, gotErr, failed, wantErr)
	}
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("non-atomic error %v; model error (section %d) %v", gotErr, failed, wantErr)
	}
	if gotErr != nil {
		ge, we := apErr(gotErr), apErr(wantErr)
		if ge == nil || we == nil {
			t.Fatalf("errors are not *patch.Error: %v / %v", gotErr, wantErr)
		}
		if ge.Kind != we.Kind || !strings.HasPrefix(ge.Msg, we.Msg) || ge.Path != we.Path || ge.Line != we.Line || ge.Section != failed {
			t.Fatalf("non-atomic error %+v\nwant as the model's %+v in section %d", ge, we, failed)
		}
		naCheckWritten(t, tr.build(t), m, ge, ge.Msg[len(we.Msg):])
		if res != nil {
			t.Fatalf("a failed Apply returned a Result: %+v", res)
		}
		return gotErr
	}

	ma := tr.build(t)
	aa, err := patch.New(ma, apRoot, append(slices.Clone(opts), patch.WithAtomic(true))...)
	if err != nil {
		t.Fatal(err)
	}
	want, err := aa.ApplyPatch(ctx, p)
	if err != nil {
		return nil // the atomic mode sees the whole patch (one file reached twice, …)
	}
	// Files only: a section may create a directory that a later one empties, where the
	// atomic commit never creates it.
	if diff := cmp.Diff(naFiles(ma), naFiles(m)); diff != "" {
		t.Fatalf("files (-atomic +non-atomic):\n%s", diff)
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Fatalf("Result (-atomic +non-atomic):\n%s", diff)
	}
	return nil
}

func TestNonAtomicSameFileTwice(t *testing.T) {
	compat := []patch.Option{patch.WithCodexCompat()}
	cases := []struct {
		name  string
		tree  naTree
		patch string
		opts  []patch.Option // default compat
		kind  patch.Kind     // the expected outcome, besides agreeing with the model
		// diverge, when set, says why the section model is not the reference for this row;
		// the outcome is then pinned by want (the files afterwards) and kind.
		diverge string
		want    map[string]string
		check   func(t *testing.T, m *wfs.MemFS)
	}{
		{
			name: "update_then_update", tree: naTree{files: map[string]string{"a.txt": "1\n2\n3\n4\n"}},
			patch: apText("*** Update File: a.txt", "@@", " 1", "-2", "+two",
				"*** Update File: a.txt", "@@", " 3", "-4", "+four"),
		},
		{
			name: "update_then_update_of_its_lines", tree: naTree{files: map[string]string{"a.txt": "1\n2\n3\n"}},
			patch: apText("*** Update File: a.txt", "@@", " 1", "-2", "+two",
				"*** Update File: a.txt", "@@", " 1", "-two", "+TWO", " 3"),
		},
		{
			name: "update_then_update_of_replaced_line_fails", tree: naTree{files: map[string]string{"a.txt": "1\n2\n3\n"}},
			patch: apText("*** Update File: a.txt", "@@", "-2", "+two",
				"*** Update File: a.txt", "@@", "-2", "+deux",
				"*** Add File: never.txt", "+x"),
			kind: patch.KindNotFound,
		},
		{
			name: "add_then_update", tree: naTree{files: map[string]string{}},
			patch: apText("*** Add File: n.txt", "+x", "+y",
				"*** Update File: n.txt", "@@", " x", "-y", "+z"),
		},
		{
			name: "add_then_add_overwrites", tree: naTree{files: map[string]string{}, umask: 0o077},
			patch: apText("*** Add File: n.txt", "+first", "*** Add File: n.txt", "+second"),
			check: naMode("n.txt", 0o600),
		},
		{
			name: "add_then_delete", tree: naTree{files: map[string]string{"k.txt": "k\n"}},
			patch: apText("*** Add File: d/n.txt", "+x", "*** Delete File: d/n.txt"),
		},
		{
			name: "delete_then_add", tree: naTree{files: map[string]string{"a.txt": "old\n"},
				setup: func(m *wfs.MemFS) { _ = m.Chmod(filepath.Join(apRoot, "a.txt"), 0o664) }},
			patch: apText("*** Delete File: a.txt", "*** Add File: a.txt", "+new"),
			check: naMode("a.txt", 0o644),
		},
		{
			name: "delete_then_update_fails", tree: naTree{files: map[string]string{"a.txt": "a\n", "b.txt": "b\n"}},
			patch: apText("*** Update File: b.txt", "@@", "-b", "+B",
				"*** Delete File: a.txt", "*** Update File: a.txt", "@@", "-a", "+A"),
			kind: patch.KindMissingFile,
		},
		{
			name: "move_chain", tree: naTree{files: map[string]string{"a.txt": "a\n"}},
			patch: apText("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+b",
				"*** Update File: b.txt", "*** Move to: d/c.txt", "@@", "-b", "+c"),
		},
		{
			name: "move_chain_back_to_source", tree: naTree{files: map[string]string{"a.txt": "a\n"},
				setup: func(m *wfs.MemFS) { _ = m.Chmod(filepath.Join(apRoot, "a.txt"), 0o664) }},
			patch: apText("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+b",
				"*** Update File: b.txt", "*** Move to: a.txt", "@@", "-b", "+back"),
			check: naMode("a.txt", 0o664),
		},
		{
			name: "move_then_add_at_source", tree: naTree{files: map[string]string{"a.txt": "a\n"}},
			patch: apText("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+b",
				"*** Add File: a.txt", "+fresh"),
		},
		{
			name: "move_then_update_destination", tree: naTree{files: map[string]string{"a.txt": "1\n2\n"}},
			patch: apText("*** Update File: a.txt", "*** Move to: d/e/b.txt", "@@", "-1", "+one",
				"*** Update File: d/e/b.txt", "@@", " one", "-2", "+two"),
		},
		{
			name: "move_onto_existing_then_update", tree: naTree{files: map[string]string{"a.txt": "a\n", "b.txt": "b\n"}},
			patch: apText("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+A",
				"*** Update File: b.txt", "@@", "-A", "+AA"),
		},
		{
			name: "add_then_move_keeps_umask", tree: naTree{files: map[string]string{}, umask: 0o077},
			patch: apText("*** Add File: n.txt", "+x", "*** Update File: n.txt", "*** Move to: m.txt", "@@", "-x", "+y"),
			check: naMode("m.txt", 0o600),
		},
		{
			name: "move_chain_then_failure", tree: naTree{files: map[string]string{"a.txt": "a\n"}},
			patch: apText("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+b",
				"*** Update File: b.txt", "*** Move to: c.txt", "@@", "-b", "+c",
				"*** Update File: c.txt", "@@", "-missing", "+x"),
			kind: patch.KindNotFound,
		},
		{
			name: "symlink_deleted_then_added", tree: naTree{files: map[string]string{"real.txt": "target\n"},
				setup: func(m *wfs.MemFS) { _ = m.Symlink("real.txt", filepath.Join(apRoot, "l")) }},
			patch: apText("*** Delete File: l", "*** Add File: l", "+regular"),
			check: func(t *testing.T, m *wfs.MemFS) {
				tree := m.TreeUnder(apRoot)
				if e := tree["l"]; e.Symlink || string(e.Data) != "regular\n" || string(tree["real.txt"].Data) != "target\n" {
					t.Errorf("l = %+v, real.txt = %q; want a regular file and the target untouched", e, tree["real.txt"].Data)
				}
			},
		},
		{
			name: "formatted_after_each_section", tree: naTree{files: map[string]string{}},
			opts: []patch.Option{patch.WithCodexCompat(), patch.WithFormatter(fakeFormatter{"upper", ".go", naUpper})},
			patch: apText("*** Add File: a.go", "+x", "*** Update File: a.go", "@@", "-X", "+y",
				"*** Add File: b.go", "+b", "*** Delete File: b.go"),
			check: func(t *testing.T, m *wfs.MemFS) {
				if got := apFiles(m)["a.go"]; got != "Y\n" {
					t.Errorf("a.go = %q, want each section formatted before the next: \"Y\\n\"", got)
				}
			},
		},
		{
			name: "formatted_then_deleted", tree: naTree{files: map[string]string{"c.go": "c\n", "d.go": "d\n"}},
			opts: []patch.Option{patch.WithCodexCompat(), patch.WithFormatter(fakeFormatter{"upper", ".go", naUpper})},
			patch: apText("*** Update File: c.go", "@@", "-c", "+cc", "*** Delete File: c.go",
				"*** Update File: d.go", "@@", "-d", "+dd"),
		},
		{
			name: "case_only_rename_then_update", tree: naTree{files: map[string]string{"Readme.md": "keep\nold\n"}, fold: true},
			patch: apText("*** Update File: Readme.md", "*** Move to: README.md", "@@", "-old", "+new",
				"*** Update File: README.md", "@@", "-keep", "+KEEP"),
		},
		{
			name: "case_only_rename_then_update_old_spelling", tree: naTree{files: map[string]string{"Readme.md": "keep\nold\n"}, fold: true},
			patch: apText("*** Update File: Readme.md", "*** Move to: README.md", "@@", "-old", "+new",
				"*** Update File: Readme.md", "@@", "-keep", "+KEEP"),
			diverge: "the plan knows Readme.md is README.md after the rename and keeps the new spelling, as the " +
				"atomic mode does and as Codex's in-place write would; section 2 committed alone renames its " +
				"temporary onto the old spelling",
			want: map[string]string{"README.md": "KEEP\nnew\n"},
		},
		{
			name: "add_then_add_other_spelling", tree: naTree{files: map[string]string{}, fold: true},
			patch: apText("*** Add File: a.txt", "+first", "*** Add File: A.TXT", "+second"),
			diverge: "a plan cannot know that two names it creates are one file before either exists; the " +
				"commit of section 2 finds that A.TXT is a.txt and refuses it (the atomic mode refuses the " +
				"whole patch the same way), where section 2 planned alone overwrites a.txt",
			want: map[string]string{"a.txt": "first\n"}, kind: patch.KindPathConflict,
			check: func(t *testing.T, m *wfs.MemFS) {
				a, _ := patch.New(naTree{fold: true}.build(t), apRoot, patch.WithCodexCompat())
				_, err := a.Apply(context.Background(), apText("*** Add File: a.txt", "+first", "*** Add File: A.TXT", "+second"))
				want := "A.TXT is the file a.txt that an earlier section wrote (the volume ignores case); name each file one way in a patch (in section 2; section 1 was written and stays)"
				want += "\nAlready written, do not send again (send only section 2 and those after it):\nA a.txt"
				if pe := apErr(err); pe == nil || pe.Msg != want || pe.Section != 2 || len(pe.Written) != 1 || pe.Written[0].Path != "a.txt" {
					t.Errorf("err = %v, want section 2 and the message %q", err, want)
				}
			},
		},
		{
			name: "symlink_deleted_then_updated", tree: naTree{files: map[string]string{"real.txt": "target\n"},
				setup: func(m *wfs.MemFS) { _ = m.Symlink("real.txt", filepath.Join(apRoot, "l")) }},
			patch: apText("*** Delete File: l", "*** Update File: l", "@@", "-target", "+changed"),
			kind:  patch.KindMissingFile,
			check: func(t *testing.T, m *wfs.MemFS) {
				// The atomic mode refuses the same patch whole: the link's old target is not
				// what l names once l is deleted.
				ma := naTree{files: map[string]string{"real.txt": "target\n"}}.build(t)
				_ = ma.Symlink("real.txt", filepath.Join(apRoot, "l"))
				a, _ := patch.New(ma, apRoot)
				_, err := a.Apply(context.Background(), apText("*** Delete File: l", "*** Update File: l", "@@", "-target", "+changed"))
				if pe := apErr(err); pe == nil || pe.Kind != patch.KindMissingFile || pe.Section != 2 {
					t.Errorf("atomic: err = %v, want a missing file in section 2", err)
				}
				if tree := ma.TreeUnder(apRoot); !tree["l"].Symlink || string(tree["real.txt"].Data) != "target\n" {
					t.Errorf("atomic: tree %+v, want it untouched", tree)
				}
			},
		},
		{
			name: "symlink_replaced_then_updated", tree: naTree{files: map[string]string{"real.txt": "target\n"},
				setup: func(m *wfs.MemFS) { _ = m.Symlink("real.txt", filepath.Join(apRoot, "l")) }},
			patch: apText("*** Delete File: l", "*** Add File: l", "+regular",
				"*** Update File: l", "@@", "-regular", "+changed"),
			check: func(t *testing.T, m *wfs.MemFS) {
				if got := apFiles(m); got["l"] != "changed\n" || got["real.txt"] != "target\n" {
					t.Errorf("files %q; want l updated and real.txt untouched", got)
				}
			},
		},
		{
			name: "first_section_fails", tree: naTree{files: map[string]string{"a.txt": "a\n"}},
			patch: apText("*** Update File: a.txt", "@@", "-nope", "+x", "*** Add File: b.txt", "+b"),
			kind:  patch.KindNotFound,
		},
		{
			name: "exists_without_overwrite", tree: naTree{files: map[string]string{"a.txt": "a\n"}},
			opts: []patch.Option{patch.WithAtomic(false)},
			patch: apText("*** Add File: n.txt", "+n", "*** Update File: a.txt", "*** Move to: n.txt", "@@", "-a", "+b",
				"*** Delete File: a.txt"),
			kind: patch.KindExists,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			if opts == nil {
				opts = compat
			}
			var err error
			if tc.diverge == "" {
				err = naCompare(t, tc.tree, tc.patch, opts)
			} else {
				m := tc.tree.build(t)
				a, _ := patch.New(m, apRoot, opts...)
				_, err = a.Apply(context.Background(), tc.patch)
				if diff := cmp.Diff(tc.want, apFiles(m)); diff != "" {
					t.Errorf("files (-want +got), where the section model does not apply (%s):\n%s", tc.diverge, diff)
				}
			}
			if pe := apErr(err); tc.kind == 0 && err != nil || tc.kind != 0 && (pe == nil || pe.Kind != tc.kind) {
				t.Fatalf("error = %v, want kind %v", err, tc.kind)
			}
			if tc.check != nil {
				m := tc.tree.build(t)
				a, _ := patch.New(m, apRoot, opts...)
				_, _ = a.Apply(context.Background(), tc.patch)
				tc.check(t, m)
			}
		})
	}
}

// naUpper is a formatter that upper-cases the whole file.
func naUpper(src []byte) ([]byte, error) { return bytes.ToUpper(src), nil }

// naFiles returns the regular files under apRoot with their modes.
func naFiles(m *wfs.MemFS) map[string]wfs.Entry {
	out := map[string]wfs.Entry{}
	for rel, e := range m.TreeUnder(apRoot) {
		if !e.Dir {
			out[rel] = e
		}
	}
	return out
}

func naMode(rel string, want fs.FileMode) func(t *testing.T, m *wfs.MemFS) {
	return func(t *testing.T, m *wfs.MemFS) {
		t.Helper()
		if e, ok := m.TreeUnder(apRoot)[rel]; !ok || e.Mode != want {
			t.Errorf("%s: mode %v (present %v), want %v", rel, e.Mode, ok, want)
		}
	}
}

// TestNonAtomicCommitFault fails every mutating file-system call of a non-atomic commit in
// turn. Each time the error must name the section whose commit failed, the tree must be
// exactly what the sections before it wrote (no temporaries left), and the message must say
// which sections stay written.
func TestNonAtomicCommitFault(t *testing.T) {
	tr := naTree{files: map[string]string{"a.txt": "a\n", "b.txt": "b\n", "e.txt": "e\n"}}
	text := apText(
		"*** Update File: a.txt", "@@", "-a", "+A",
		"*** Add File: d/n.txt", "+n",
		"*** Update File: b.txt", "*** Move to: c.txt", "@@", "-b", "+C",
		"*** Delete File: e.txt",
		"*** Update File: a.txt", "@@", "-A", "+AA")
	p, err := patch.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	// after[s] is the tree once sections 1..s are written.
	var after []map[string]wfs.Entry
	for s := 0; s <= len(p.Hunks); s++ {
		m := tr.build(t)
		if err, _ := sectionModel(t, m, &patch.Patch{Hunks: p.Hunks[:s]}, []patch.Option{patch.WithCodexCompat()}); err != nil {
			t.Fatal(err)
		}
		after = append(after, m.TreeUnder(apRoot))
	}
	apply := func(m *wfs.MemFS) (*patch.Result, error) {
		a, err := patch.New(m, apRoot, patch.WithCodexCompat())
		if err != nil {
			t.Fatal(err)
		}
		return a.Apply(context.Background(), text)
	}
	calls := 0
	m := tr.build(t)
	m.InjectFault(func(op, name string) bool { calls++; return false }, errors.New("unused"))
	if _, err := apply(m); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(after[len(p.Hunks)], m.TreeUnder(apRoot)); diff != "" {
		t.Fatalf("tree without faults (-model +got):\n%s", diff)
	}
	failedIn := map[int]int{} // section → faults that stopped the commit there
	succeeded := 0            // faults after the last switch of a section
	for n := 1; n <= calls; n++ {
		t.Run(fmt.Sprintf("call_%02d", n), func(t *testing.T) {
			m := tr.build(t)
			seen := 0
			var hit string
			m.InjectFault(func(op, name string) bool {
				seen++
				if seen == n {
					hit = op + " " + name
					return true
				}
				return false
			}, errors.New("injected fault"))
			res, err := apply(m)
			if err == nil {
				// A fault in a step after the last switch (closing a file only read, removing
				// a temporary, the journal) does not undo a commit that is done; what it
				// leaves is the journal's, and the next recovery removes it.
				if _, err := wfs.Recover(context.Background(), m, apRoot); err != nil {
					t.Fatalf("fault at %s: Recover: %v", hit, err)
				}
				if diff := cmp.Diff(after[len(p.Hunks)], m.TreeUnder(apRoot)); diff != "" {
					t.Errorf("fault at %s, commit succeeded: tree after recovery (-all sections +got):\n%s", hit, diff)
				}
				succeeded++
				return
			}
			pe := apErr(err)
			if pe == nil || pe.Kind != patch.KindIO || !errors.Is(err, patch.ErrIO) {
				t.Fatalf("fault at %s: err = %v, res = %+v; want an I/O error", hit, err, res)
			}
			s := pe.Section
			if s < 1 || s > len(p.Hunks) {
				t.Fatalf("fault at %s: Section = %d", hit, s)
			}
			failedIn[s]++
			if diff := cmp.Diff(after[s-1], m.TreeUnder(apRoot)); diff != "" {
				t.Errorf("fault at %s, reported in section %d: tree (-sections before it +got):\n%s", hit, s, diff)
			}
			want := "nothing"
			switch {
			case s == 2:
				want = "section 1 was written and stays"
			case s > 2:
				want = fmt.Sprintf("sections 1-%d were written and stay", s-1)
			}
			if s >= 2 && !strings.Contains(pe.Msg, want) || s == 1 && strings.Contains(pe.Msg, "written and stay") {
				t.Errorf("fault at %s: message %q, want it to say %q", hit, pe.Msg, want)
			}
			if res != nil {
				t.Errorf("Result %+v alongside the error", res)
			}
		})
	}
	for s := 1; s <= len(p.Hunks); s++ {
		if failedIn[s] == 0 {
			t.Errorf("no fault stopped the commit in section %d (faults per section: %v)", s, failedIn)
		}
	}
	t.Logf("%d calls: faults per failing section %v, %d after the last switch", calls, failedIn, succeeded)
}

// TestNonAtomicMatchesSectionModel generates small trees and patches of up to six sections
// (adds, deletes, updates and moves over a few paths, whose chunks are drawn from the words the
// files hold, so that many apply, some only after an earlier section, and many fail) and
// checks the non-atomic apply against the section model: the same tree, modes included; the
// same error in the same section; and, when every section applies, the atomic applier's
// files and Result.
func TestNonAtomicMatchesSectionModel(t *testing.T) {
	// outcomes counts the runs by outcome, so that a generator that stopped producing
	// successes of several sections or late failures is noticed.
	outcomes := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		tr, text, opts := genNonAtomic(t)
		err := naCompare(t, tr, text, opts)
		switch pe := apErr(err); {
		case err == nil && strings.Count(text, "\n*** ") > 2:
			outcomes["several sections applied"]++
		case err == nil:
			outcomes["one section applied"]++
		case pe != nil && pe.Section > 1:
			outcomes["failed after a written section"]++
		default:
			outcomes["failed in section 1"]++
		}
	})
	t.Logf("outcomes: %v", outcomes)
	for _, k := range []string{"several sections applied", "failed after a written section"} {
		if outcomes[k] == 0 {
			t.Errorf("no run %s (outcomes %v): the generator needs adjusting", k, outcomes)
		}
	}
}

// genNonAtomic draws a small tree and a patch of up to six sections over it (adds, deletes,
// updates and moves over a few paths, whose chunks are drawn from the words the files hold,
// so that many apply, some only after an earlier section, and many fail), and the options of
// a non-atomic mode.
func genNonAtomic(t *rapid.T) (naTree, string, []patch.Option) {
	words := []string{"one", "two", "three", "four"}
	paths := []string{"a.txt", "b.txt", "d/c.txt", "d/e/f.txt", "n.txt"}
	tr := naTree{files: map[string]string{}, umask: rapid.SampledFrom([]fs.FileMode{0o022, 0o077}).Draw(t, "umask")}
	for _, n := range paths[:3] {
		if rapid.Bool().Draw(t, "has_"+n) {
			tr.files[n] = strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), 1, 5).Draw(t, "lines_"+n), "\n") + "\n"
		}
	}
	opts := rapid.SampledFrom([][]patch.Option{
		{patch.WithCodexCompat()},
		{patch.WithAtomic(false)},
		{patch.WithAtomic(false), patch.WithOverwrite(true)},
	}).Draw(t, "opts")
	line := func(label string) string {
		return rapid.SampledFrom(append(words, "NEW")).Draw(t, label)
	}
	// Sections are drawn against a scratch tree that each drawn section is applied to
	// (atomically, failures ignored), so that most of them name files that exist and
	// lines that are there at that point.
	scratch := tr.build(t)
	sa, err := patch.New(scratch, apRoot, append(slices.Clone(opts), patch.WithAtomic(true))...)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for s := range rapid.IntRange(1, 6).Draw(t, "sections") {
		files := apFiles(scratch)
		var have, missing []string
		for _, p := range paths {
			if _, ok := files[p]; ok {
				have = append(have, p)
			} else {
				missing = append(missing, p)
			}
		}
		pick := func(preferred []string, label string) string {
			if len(preferred) > 0 && rapid.IntRange(0, 4).Draw(t, label+"_preferred") > 0 {
				return rapid.SampledFrom(preferred).Draw(t, label)
			}
			return rapid.SampledFrom(paths).Draw(t, label)
		}
		var sec strings.Builder
		switch kind := rapid.IntRange(0, 4).Draw(t, fmt.Sprint("kind_", s)); kind {
		case 0:
			fmt.Fprintf(&sec, "*** Add File: %s\n", pick(missing, "add_path"))
			for range rapid.IntRange(1, 3).Draw(t, "add_lines") {
				fmt.Fprintf(&sec, "+%s\n", line("added"))
			}
		case 1:
			fmt.Fprintf(&sec, "*** Delete File: %s\n", pick(have, "delete_path"))
		default:
			p := pick(have, "update_path")
			fmt.Fprintf(&sec, "*** Update File: %s\n", p)
			if kind == 4 {
				fmt.Fprintf(&sec, "*** Move to: %s\n", pick(missing, "move_to"))
			}
			lines := strings.Split(strings.TrimSuffix(files[p], "\n"), "\n")
			from := 0
			for range rapid.IntRange(1, 2).Draw(t, "chunks") {
				sec.WriteString("@@\n")
				n := rapid.IntRange(1, 3).Draw(t, "old")
				if from >= len(lines) || files[p] == "" || rapid.IntRange(0, 4).Draw(t, "from_file") == 0 {
					for range n { // lines the file may not have
						fmt.Fprintf(&sec, "%s%s\n", rapid.SampledFrom([]string{" ", "-"}).Draw(t, "op"), line("old_line"))
					}
				} else {
					at := rapid.IntRange(from, len(lines)-1).Draw(t, "at")
					end := min(at+n, len(lines))
					for _, l := range lines[at:end] {
						fmt.Fprintf(&sec, "%s%s\n", rapid.SampledFrom([]string{" ", "-"}).Draw(t, "op"), l)
					}
					from = end
				}
				for range rapid.IntRange(0, 2).Draw(t, "new") {
					fmt.Fprintf(&sec, "+%s\n", line("new_line"))
				}
			}
		}
		b.WriteString(sec.String())
		_, _ = sa.Apply(context.Background(), "*** Begin Patch\n"+sec.String()+"*** End Patch\n")
	}
	b.WriteString("*** End Patch\n")
	return tr, b.String(), opts
}

// TestNonAtomicFaultMatchesSectionPrefix fails one mutating file-system call, drawn at random,
// of a generated non-atomic apply. When the fault stops the commit, the tree must be exactly
// what the sections before the reported one write (the section model), nothing else.
func TestNonAtomicFaultMatchesSectionPrefix(t *testing.T) {
	hits := 0
	rapid.Check(t, func(t *rapid.T) {
		tr, text, opts := genNonAtomic(t)
		n := rapid.IntRange(1, 40).Draw(t, "fault_call")
		injected := errors.New("injected fault")
		m := tr.build(t)
		seen := 0
		m.InjectFault(func(op, name string) bool { seen++; return seen == n }, injected)
		a, err := patch.New(m, apRoot, opts...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = a.Apply(context.Background(), text)
		if !errors.Is(err, injected) {
			if pe := apErr(err); seen >= n && pe != nil && pe.Kind == patch.KindIO {
				t.Fatalf("the fault was injected but the error is %v", err)
			}
			if seen >= n {
				// The fault hit a step that does not undo a done commit (a close of a file
				// only read, a cleanup): recovery removes what it left.
				if _, err := wfs.Recover(context.Background(), m, apRoot); err != nil {
					t.Fatal(err)
				}
				if len(leftovers(m)) > 0 {
					t.Fatalf("left after recovery: %v", leftovers(m))
				}
			}
			naCompare(t, tr, text, opts) // the plain comparison
			return
		}
		hits++
		pe := apErr(err)
		if pe == nil || pe.Kind != patch.KindIO || pe.Section < 1 {
			t.Fatalf("err = %v, want an I/O error naming its section", err)
		}
		p, perr := patch.Parse(text)
		if perr != nil {
			t.Fatal(perr)
		}
		mm := tr.build(t)
		if merr, _ := sectionModel(t, mm, &patch.Patch{Hunks: p.Hunks[:pe.Section-1]}, opts); merr != nil {
			t.Fatalf("the sections before the failing one do not apply in the model: %v", merr)
		}
		if diff := cmp.Diff(mm.TreeUnder(apRoot), m.TreeUnder(apRoot)); diff != "" {
			t.Fatalf("fault reported in section %d: tree (-sections before it +got):\n%s\nerr: %v", pe.Section, diff, err)
		}
	})
	if hits == 0 {
		t.Error("no run injected a fault into a commit: the generator needs adjusting")
	}
	t.Logf("%d runs stopped by the injected fault", hits)
}

// TestNonAtomicReportsLeftovers: the non-atomic Result reports the temporaries of an
// interrupted commit in the directories it touches, as the atomic one does, and leaves them.
func TestNonAtomicReportsLeftovers(t *testing.T) {
	left := filepath.Join(apRoot, ".a.txt.hkpatch-0badc0de.tmp")
	tr := naTree{files: map[string]string{"a.txt": "a\n", ".a.txt.hkpatch-0badc0de.tmp": "half\n"}}
	text := apText("*** Update File: a.txt", "@@", "-a", "+A", "*** Add File: d/n.txt", "+n")
	if err := naCompare(t, tr, text, []patch.Option{patch.WithCodexCompat()}); err != nil {
		t.Fatal(err)
	}
	m := tr.build(t)
	a, err := patch.New(m, apRoot, patch.WithCodexCompat())
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Apply(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{left}, res.Leftovers); diff != "" {
		t.Errorf("Leftovers (-want +got):\n%s", diff)
	}
	if got := apFiles(m)[".a.txt.hkpatch-0badc0de.tmp"]; got != "half\n" {
		t.Errorf("leftover = %q, want it left as it was", got)
	}
}

// leftovers lists the temporaries and journals in m.
func leftovers(m *wfs.MemFS) []string {
	var out []string
	for k := range m.Tree() {
		if wfs.IsLeftover(filepath.Base(k)) || strings.Contains(k, wfs.JournalDir) {
			out = append(out, k)
		}
	}
	return out
}

// naCheckWritten checks what a failed non-atomic apply says it wrote (rest is its message
// after the failing section's own): Error.Written names exactly the files that differ between
// the tree before and after, and the message lists each of them.
func naCheckWritten(t naT, before, after *wfs.MemFS, pe *patch.Error, rest string) {
	t.Helper()
	b, a := naFiles(before), naFiles(after)
	changed := map[string]bool{}
	for k, e := range b {
		if f, ok := a[k]; !ok || !bytes.Equal(f.Data, e.Data) || f.Symlink != e.Symlink {
			changed[k] = true
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			changed[k] = true
		}
	}
	named := map[string]bool{}
	for _, c := range pe.Written {
		named[c.Path] = true
		if c.From != "" {
			named[c.From] = true
		}
		letter := map[patch.ChangeOp]string{patch.Added: "A", patch.Modified: "M", patch.Moved: "M", patch.Deleted: "D"}[c.Op]
		if !strings.Contains(rest, "\n"+letter+" "+c.Path) {
			t.Fatalf("the message does not list %s %s as written:%s", letter, c.Path, rest)
		}
	}
	for k := range changed {
		if !named[k] {
			t.Fatalf("%s was written but Error.Written does not name it: %+v", k, pe.Written)
		}
	}
	if len(pe.Written) == 0 && rest != "" || len(pe.Written) > 0 && !strings.Contains(rest, fmt.Sprintf("Already written, do not send again (send only section %d and those after it):", pe.Section)) {
		t.Fatalf("message tail %q for %d written changes", rest, len(pe.Written))
	}
}
