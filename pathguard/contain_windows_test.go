package pathguard_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/pathguard"
)

// TestContainmentOSJunction runs the junction branch on a real NTFS tree: a junction that
// leads outside the root is outside, one that leads back in is inside with its real path,
// and a root below a junction resolves through it. Wine cannot create junctions (its
// FSCTL_SET_REPARSE_POINT answers "not supported"), so there the test skips; the same
// branch is covered through the fake reparse-point seam by TestContainmentJunction.
func TestContainmentOSJunction(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(testenv.TempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	mkTree(t, tmp, "ws/sub/", "outside/", "real/ws/")
	ws := filepath.Join(tmp, "ws")
	if err := testenv.Junction(filepath.Join(ws, "j"), filepath.Join(tmp, "outside")); err != nil {
		if testenv.Wine() {
			t.Skipf("skipped under Wine: it cannot create junctions (%v); TestContainmentJunction covers the branch through the fake seam", err)
		}
		t.Fatal(err)
	}
	if err := testenv.Junction(filepath.Join(ws, "jin"), filepath.Join(ws, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := testenv.Junction(filepath.Join(tmp, "link"), filepath.Join(tmp, "real")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(ws, "j"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&fs.ModeIrregular == 0 || fi.Mode()&fs.ModeSymlink != 0 {
		t.Fatalf("Lstat(junction).Mode() = %v: the branch expects ModeIrregular without ModeSymlink (Go 1.23+)", fi.Mode())
	}
	c, err := pathguard.NewContainment(ws)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.Check(`j\x.txt`); kindOf(t, err) != pathguard.KindOutside {
		t.Errorf(`Check(j\x.txt) = %+v, %v; want outside (the junction leads to %s)`, got, err, filepath.Join(tmp, "outside"))
	}
	got, err := c.Check(`jin\x.txt`)
	if err != nil || got.Real != filepath.Join(ws, "sub", "x.txt") {
		t.Errorf(`Check(jin\x.txt) = %+v, %v; want inside at %s`, got, err, filepath.Join(ws, "sub", "x.txt"))
	}
	below, err := pathguard.NewContainment(filepath.Join(tmp, "link", "ws"))
	if err != nil {
		t.Fatal(err)
	}
	got, err = below.Check("x.txt")
	if err != nil || got.RealBase != filepath.Join(tmp, "real", "ws") {
		t.Errorf("root below a junction: Check(x.txt) = %+v, %v; want RealBase %s", got, err, filepath.Join(tmp, "real", "ws"))
	}
}

// TestContainmentOSWindows runs containment with the native flavour over a real NTFS tree
// (under Wine, over its case-insensitive view of the host's file system): separators of
// both kinds, other case, the \\?\ and \\.\ spellings, missing tails, a regular file used
// as a directory (which Windows reports as not-exist), and the names Windows rewrites.
// Symbolic links are left to the fakes: they need a privilege on Windows and Wine has none.
func TestContainmentOSWindows(t *testing.T) {
	tmp := realTempDir(t)
	mkTree(t, tmp, `proj\a\b.txt`, `proj\f.txt`, `proj\sub\`, `outside\secret.txt`)
	P := filepath.Join(tmp, "proj")
	inside := func(p string) string { return filepath.Join(P, p) }
	tests := []struct {
		name     string
		target   string
		wantKind pathguard.Kind
		wantReal string // when set
		wantRel  string // when set
	}{
		{name: "E49_relative_inside", target: `a\b.txt`, wantReal: inside(`a\b.txt`), wantRel: "a/b.txt"},
		{name: "E49_forward_slashes", target: `a/b.txt`, wantReal: inside(`a\b.txt`), wantRel: "a/b.txt"},
		{name: "E50_absolute_inside", target: inside(`a\b.txt`), wantReal: inside(`a\b.txt`), wantRel: "a/b.txt"},
		{name: "E51_parent_escape", target: `..\outside\secret.txt`, wantKind: pathguard.KindOutside},
		{name: "E54_missing_dirs", target: `new\deep\x.txt`, wantReal: inside(`new\deep\x.txt`), wantRel: "new/deep/x.txt"},
		{name: "E62_root_in_upper_case", target: strings.ToUpper(P) + `\a\b.txt`, wantReal: inside(`a\b.txt`), wantRel: "a/b.txt"},
		{name: "E62_relative_other_case", target: `A\B.TXT`, wantRel: "A/B.TXT"},
		{name: "E68_root_itself_via_parent", target: `..\proj`, wantReal: P, wantRel: "."},
		{name: "E69_under_regular_file", target: `f.txt\child`, wantReal: inside(`f.txt\child`), wantRel: "f.txt/child"},
		{name: "E71_normalised_to_parent", target: `a\..\..\x`, wantKind: pathguard.KindOutside},
		{name: "verbatim_inside", target: `\\?\` + inside(`a\b.txt`), wantReal: inside(`a\b.txt`), wantRel: "a/b.txt"},
		{name: "device_namespace_inside", target: `\\.\` + inside(`sub\x`), wantReal: inside(`sub\x`), wantRel: "sub/x"},
		{name: "verbatim_outside", target: `\\?\` + filepath.Join(tmp, `outside\secret.txt`), wantKind: pathguard.KindOutside},
		{name: "E85_trailing_dot", target: `x.`, wantKind: pathguard.KindResolve},
		{name: "E85_trailing_space", target: `sub\x `, wantKind: pathguard.KindResolve},
		{name: "E85_device_name", target: `sub\nul.txt`, wantKind: pathguard.KindResolve},
		{name: "E85_stream", target: `f.txt:secret`, wantKind: pathguard.KindResolve},
		{name: "drive_relative", target: P[:2] + `x`, wantKind: pathguard.KindResolve},
	}
	c, err := pathguard.NewContainment(P)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.Check(tc.target)
			if k := kindOf(t, err); k != tc.wantKind {
				t.Fatalf("Check(%q) = %+v, kind %v (%v), want %v", tc.target, got, k, err, tc.wantKind)
			}
			if tc.wantReal != "" && got.Real != tc.wantReal {
				t.Errorf("Real = %q, want %q", got.Real, tc.wantReal)
			}
			if tc.wantRel != "" && got.Rel != tc.wantRel {
				t.Errorf("Rel = %q, want %q", got.Rel, tc.wantRel)
			}
		})
	}
	t.Run("E61_other_drive", func(t *testing.T) {
		other := "Z:"
		if strings.EqualFold(P[:2], other) {
			other = "Y:"
		}
		if _, err := c.Check(other + `\x`); kindOf(t, err) != pathguard.KindOutside {
			t.Errorf("Check(%s\\x) = %v, want outside", other, err)
		}
	})
}
