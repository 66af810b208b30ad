package format

import "github.com/harnesskit/harnesskit/internal/udiff"

// DefaultDiffContext is the number of unchanged lines around each hunk of a unified diff.
const DefaultDiffContext = udiff.Context

// Unified returns the unified diff from before to after with DefaultDiffContext lines of
// context, headed "--- a/<name>" and "+++ b/<name>"; "" when they are equal. Every hunk
// header gives both line counts ("@@ -1,1 +1,1 @@"), and a last line without a newline is
// followed by "\ No newline at end of file", as in diff(1). The diff is minimal up to 2,000
// changed lines; past that the differing middle is shown as one replaced block. patch and
// astsearch write their diffs the same way.
func Unified(name string, before, after []byte) string {
	return udiff.Diff(name, before, after)
}
