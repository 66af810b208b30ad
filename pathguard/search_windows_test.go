package pathguard_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/pathguard"
)

// TestSearchCheckOSWindows runs the search-path check with the native flavour and os.Stat
// over a real NTFS tree (under Wine, its view of the host's): a regular file used as a
// directory is not-exist there (E28), both separators are accepted, and the \\?\ spelling
// of an existing directory passes (E27).
func TestSearchCheckOSWindows(t *testing.T) {
	tmp := realTempDir(t)
	mkTree(t, tmp, `proj\f.txt`, `proj\sub\`)
	P := filepath.Join(tmp, "proj")
	tests := []struct {
		name     string
		tool     string
		path     string
		wantKind pathguard.Kind
		resolved string // named in the message when set
	}{
		{name: "E7_sub_grep", tool: "grep", path: "sub"},
		{name: "E7_sub_glob", tool: "glob", path: `sub\`},
		{name: "E8_absolute_file", tool: "grep", path: filepath.Join(P, "f.txt")},
		{name: "E10_missing_glob", tool: "glob", path: "no-such-dir", wantKind: pathguard.KindMissing, resolved: filepath.Join(P, "no-such-dir")},
		{name: "E11_missing_absolute", tool: "grep", path: filepath.Join(tmp, "nope"), wantKind: pathguard.KindMissing, resolved: filepath.Join(tmp, "nope")},
		{name: "E22_existing_sibling", tool: "grep", path: `..\proj\sub`},
		{name: "E27_verbatim_existing", tool: "grep", path: `\\?\` + filepath.Join(P, "sub")},
		{name: "E27_verbatim_missing", tool: "grep", path: `\\?\` + filepath.Join(P, "gone"), wantKind: pathguard.KindMissing},
		{name: "E28_file_as_directory", tool: "grep", path: `f.txt\child`, wantKind: pathguard.KindMissing, resolved: filepath.Join(P, `f.txt\child`)},
		{name: "E28_file_as_directory_slash", tool: "glob", path: `f.txt/child`, wantKind: pathguard.KindMissing},
		{name: "mixed_separators", tool: "grep", path: `sub/../sub`},
	}
	g := pathguard.NewSearchGuard()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := g.Check(tc.tool, map[string]any{"path": tc.path}, P)
			if k := kindOf(t, err); k != tc.wantKind {
				t.Fatalf("Check(%s, %q) = %v, kind %v, want %v", tc.tool, tc.path, err, k, tc.wantKind)
			}
			if tc.resolved != "" && !strings.Contains(err.Error(), tc.resolved+` (from "`+tc.path+`")`) {
				t.Errorf("message %q does not name %s", err, tc.resolved)
			}
		})
	}
}
