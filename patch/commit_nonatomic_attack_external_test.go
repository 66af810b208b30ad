package patch_test

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// TestNonAtomicTwoNamesKeepsEarlierSections: without atomicity, the error's Section says
// where writing stopped: the sections before it are written. A section that reaches a file
// an earlier section named another way (a symbolic link and its target, or two hard links
// on a MemFS) is refused as it is in the default mode, but the sections before the one that
// conflicts are written, as for any other failing section.
func TestNonAtomicTwoNamesKeepsEarlierSections(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(m *wfs.MemFS)
		body    []string
		section int               // the section the error names
		want    map[string]string // regular files afterwards
	}{
		{
			name:  "symlink_then_target",
			setup: func(m *wfs.MemFS) { _ = m.Symlink("real.txt", filepath.Join(apRoot, "l")) },
			body: []string{
				"*** Update File: a.txt", "@@", "-a", "+A",
				"*** Update File: l", "@@", "-r", "+R",
				"*** Update File: real.txt", "@@", "-R", "+RR",
				"*** Add File: never.txt", "+x",
			},
			section: 3,
			want:    map[string]string{"a.txt": "A\n", "real.txt": "R\n"},
		},
		{
			name:  "delete_of_target_after_link_update",
			setup: func(m *wfs.MemFS) { _ = m.Symlink("real.txt", filepath.Join(apRoot, "l")) },
			body: []string{
				"*** Update File: l", "@@", "-r", "+R",
				"*** Delete File: real.txt",
			},
			section: 2,
			want:    map[string]string{"a.txt": "a\n", "real.txt": "R\n"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := apTree(t, map[string]string{"a.txt": "a\n", "real.txt": "r\n"})
			tc.setup(m)
			a, err := patch.New(m, apRoot, patch.WithCodexCompat())
			if err != nil {
				t.Fatal(err)
			}
			_, err = a.Apply(context.Background(), apText(tc.body...))
			pe := apErr(err)
			if pe == nil || pe.Kind != patch.KindPathConflict || pe.Section != tc.section {
				t.Fatalf("err = %v, want a path conflict in section %d", err, tc.section)
			}
			got := apFiles(m)
			for name, data := range tc.want {
				if got[name] != data {
					t.Errorf("%s = %q, want %q (the sections before section %d are written)", name, got[name], data, tc.section)
				}
			}
			if _, ok := got["never.txt"]; ok {
				t.Errorf("a section after the failing one was written")
			}
		})
	}
}

// TestAtomicTwoSpellingsCreatedNamed: on a case-insensitive volume, a patch that creates one
// file under two spellings ("a.txt", then "A.TXT") cannot be told apart when planning (neither
// exists). The atomic commit finds it when the second name turns out to be the first file: it
// writes nothing, as before, and says what happened — the patch names one file two ways —
// rather than that a file changed on disk, which would send a model to re-read and resend the
// same patch.
func TestAtomicTwoSpellingsCreatedNamed(t *testing.T) {
	tests := []struct {
		name string
		body []string
	}{
		{name: "add_then_add", body: []string{"*** Add File: a.txt", "+first", "*** Add File: A.TXT", "+second"}},
		{name: "move_then_add", body: []string{"*** Update File: keep.txt", "*** Move to: n.txt", "@@", "-k", "+K",
			"*** Add File: N.TXT", "+second"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := apTree(t, map[string]string{"keep.txt": "k\n"})
			m.SetCaseInsensitive(true)
			before := apFiles(m)
			a, err := patch.New(m, apRoot)
			if err != nil {
				t.Fatal(err)
			}
			_, err = a.Apply(context.Background(), apText(tc.body...))
			pe := apErr(err)
			if pe == nil || pe.Kind != patch.KindPathConflict || !strings.Contains(pe.Msg, "ignores case") {
				t.Fatalf("err = %v, want a path conflict saying the volume ignores case", err)
			}
			if got := apFiles(m); !maps.Equal(got, before) {
				t.Errorf("files = %q, want them untouched %q", got, before)
			}
		})
	}
}

// TestNonAtomicCancelledMidCommitSaysWhatWasWritten: a context cancelled while a non-atomic
// commit runs stops it before the next section; the message must not claim that nothing was
// written when earlier sections were.
func TestNonAtomicCancelledMidCommitSaysWhatWasWritten(t *testing.T) {
	m := apTree(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m.InjectFault(func(op, name string) bool {
		if (op == "rename" || op == "link") && name == filepath.Join(apRoot, "a.txt") {
			cancel() // the first section's switch: the commit is cancelled from here on
		}
		return false
	}, nil)
	a, err := patch.New(m, apRoot, patch.WithCodexCompat())
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Apply(ctx, apText("*** Update File: a.txt", "@@", "-a", "+A", "*** Update File: b.txt", "@@", "-b", "+B"))
	pe := apErr(err)
	if pe == nil || !errors.Is(err, context.Canceled) || pe.Section != 2 {
		t.Fatalf("err = %v, want a cancellation in section 2", err)
	}
	if got := apFiles(m); got["a.txt"] != "A\n" || got["b.txt"] != "b\n" {
		t.Fatalf("files = %q, want section 1 written and section 2 not", got)
	}
	if strings.Contains(pe.Msg, "before anything was written") {
		t.Errorf("message %q says nothing was written, but section 1 was", pe.Msg)
	}
}
