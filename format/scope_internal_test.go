package format

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// text draws a short text from a few lines, so that diffs mix matches and changes.
func text(t *rapid.T, label string) string {
	ls := rapid.SliceOfN(rapid.SampledFrom([]string{"a\n", "b\n", "c\n", "\n", "  d\n"}), 0, 20).Draw(t, label)
	return strings.Join(ls, "")
}

// TestKeepTouchedBounds checks the two ends of ScopeTouched: an edit that touched nothing
// keeps none of the formatter's changes, and an edit that wrote every line keeps them all.
func TestKeepTouchedBounds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		src, formatted := text(t, "src"), text(t, "formatted")
		got, partial := keepTouched([]byte(src), []byte(src), []byte(formatted))
		if string(got) != src || partial != (src != formatted) {
			t.Fatalf("untouched: got %q partial %v, want %q partial %v", got, partial, src, src != formatted)
		}
		if src == "" {
			return
		}
		got, partial = keepTouched(nil, []byte(src), []byte(formatted))
		if string(got) != formatted || partial {
			t.Fatalf("all touched: got %q partial %v, want %q", got, partial, formatted)
		}
	})
}
