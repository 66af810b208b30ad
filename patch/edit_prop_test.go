package patch_test

import (
	"errors"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/harnesskit/harnesskit/patch"
)

// editLines draws a file of lines from a small vocabulary, so that repeats (and so
// ambiguities) are common; every file ends with a line break.
func editLines(t *rapid.T) []string {
	vocab := []string{"a", "b := 1", "\treturn x - 1", "}", "", "  say(\"hi\")", "\tif y {", "c", "  // note"}
	return rapid.SliceOfN(rapid.SampledFrom(vocab), 1, 14).Draw(t, "lines")
}

// countExact counts the places of old in s, overlapping ones too.
func countExact(s, old string) int {
	n := 0
	for i := range len(s) - len(old) + 1 {
		if s[i:i+len(old)] == old {
			n++
		}
	}
	return n
}

// An edit whose old text is taken from the file applies exactly there when that text is
// unique, and is refused as ambiguous otherwise; the naive model is a string splice.
func TestPropEditFromFile(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		file := strings.Join(editLines(t), "\n") + "\n"
		if len(file) < 3 {
			t.Skip("too short")
		}
		s := rapid.IntRange(0, len(file)-2).Draw(t, "start")
		e := rapid.IntRange(s+1, len(file)-1).Draw(t, "end") // the final line break stays
		old := file[s:e]
		nw := rapid.SampledFrom([]string{"", "X", "x\ny", "\n", "b := 2"}).Draw(t, "new")
		if nw == old {
			t.Skip("old equals new")
		}
		got, _, err := patch.ApplyEdits("f", []byte(file), []patch.Edit{{Old: old, New: nw}})
		switch n := countExact(file, old); {
		case n == 1:
			if err != nil {
				t.Fatalf("unique old %q: %v", old, err)
			}
			if want := file[:s] + nw + file[e:]; string(got) != want {
				t.Fatalf("got %q, want %q", got, want)
			}
		default:
			if !errors.Is(err, patch.ErrAmbiguous) {
				t.Fatalf("old %q occurs %d times: err = %v, got %q", old, n, err, got)
			}
		}
	})
}

// perturb returns a line as a model may misquote it: trailing or leading whitespace
// changed, or ASCII punctuation written typographically.
func perturb(t *rapid.T, l string, i int) string {
	switch rapid.IntRange(0, 5).Draw(t, "perturb") {
	case 1:
		return l + "  "
	case 2:
		return strings.TrimLeft(l, " \t")
	case 3:
		return "    " + strings.TrimLeft(l, " \t")
	case 4:
		return strings.NewReplacer("\"", "\u201c", "-", "\u2013").Replace(l)
	case 5:
		return strings.TrimRight(l, " \t") + "\t"
	}
	return l
}

// An old text of whole lines perturbed as models misquote them applies at the place it was
// taken from, with the file's bytes on the lines the edit keeps, or is refused; it never
// changes another place. (A perturbed text that is in the file as written is no longer a
// misquote: it is sought as written and skipped here.)
func TestPropEditPerturbed(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lines := editLines(t)
		i := rapid.IntRange(0, len(lines)-1).Draw(t, "i")
		j := rapid.IntRange(i+1, min(len(lines), i+4)).Draw(t, "j")
		file := strings.Join(lines, "\n") + "\n"
		oldL := make([]string, 0, j-i)
		for k := i; k < j; k++ {
			oldL = append(oldL, perturb(t, lines[k], k))
		}
		old := strings.Join(oldL, "\n")
		if strings.Contains(file, old) {
			t.Skip("the perturbed text is in the file as written")
		}
		c := rapid.IntRange(0, j-i-1).Draw(t, "changed")
		newL := append([]string(nil), oldL...)
		newL[c] = "CHANGED()"
		nw := strings.Join(newL, "\n")
		got, _, err := patch.ApplyEdits("f", []byte(file), []patch.Edit{{Old: old, New: nw}})
		if err != nil {
			return // refused
		}
		want := append([]string(nil), lines[:i]...)
		for k := i; k < j; k++ {
			if k-i == c {
				want = append(want, "CHANGED()")
			} else {
				want = append(want, lines[k])
			}
		}
		want = append(want, lines[j:]...)
		if w := strings.Join(want, "\n") + "\n"; string(got) != w {
			t.Fatalf("old %q applied elsewhere:\ngot  %q\nwant %q", old, got, w)
		}
	})
}

// replace_all replaces every non-overlapping place, from the start, as strings.ReplaceAll.
func TestPropEditReplaceAll(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		body := rapid.StringOfN(rapid.RuneFrom([]rune("ab \n")), 1, 40, -1).Draw(t, "body")
		file := body + "x\n"
		s := rapid.IntRange(0, len(body)-1).Draw(t, "start")
		e := rapid.IntRange(s+1, min(len(body), s+3)).Draw(t, "end")
		old := body[s:e]
		nw := rapid.StringOfN(rapid.RuneFrom([]rune("abc\n")), 0, 4, -1).Draw(t, "new")
		if old == nw {
			t.Skip("old equals new")
		}
		got, reps, err := patch.ApplyEdits("f", []byte(file), []patch.Edit{{Old: old, New: nw, ReplaceAll: true}})
		if err != nil {
			t.Fatalf("old %q: %v", old, err)
		}
		want := strings.ReplaceAll(file, old, nw)
		if !strings.HasSuffix(want, "\n") {
			want += "\n" // the file's final line break is kept
		}
		if string(got) != want {
			t.Fatalf("got %q, want %q", got, want)
		}
		if len(reps) != strings.Count(file, old) {
			t.Fatalf("%d reports for %d places", len(reps), strings.Count(file, old))
		}
	})
}
