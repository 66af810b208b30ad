package patch_test

import (
	"errors"
	"strings"
	"testing"
	"unicode"

	"pgregory.net/rapid"

	"github.com/harnesskit/harnesskit/patch"
)

// Fragments that stress the parser: markers, prefixes, whitespace of every sort (including
// U+00A0, U+3000 and U+FEFF), carriage returns and non-ASCII text.
var textFragments = []string{
	"x", "y", "é", "✅", " ", "  ", "\t", "\r", "\u00a0", "\u3000", "\uFEFF", "+", "-", "*",
	"@@", "***", "*** End Patch", "*** End of File", "*** Add File: q", "<<EOF", "EOF", "'", `"`, "\\",
}

// genText draws a line's text without a line break (it may be empty, all whitespace, or
// look like a marker).
var genText = rapid.Custom(func(t *rapid.T) string {
	parts := rapid.SliceOfN(rapid.SampledFrom(textFragments), 0, 5).Draw(t, "parts")
	return strings.Join(parts, "")
})

func isWS(r rune) bool { return r == '\uFEFF' || unicode.IsSpace(r) }

// genPath draws a valid path: non-empty, trimmed, no line break or NUL.
var genPath = rapid.Custom(func(t *rapid.T) string {
	s := strings.TrimFunc(genText.Draw(t, "raw"), isWS)
	if s == "" {
		s = rapid.SampledFrom([]string{"a.txt", "dir/b.go", "/abs/c", `C:\d`, "..cache/x", "e f"}).Draw(t, "fallback")
	}
	return s
})

// genAnchor draws a valid anchor: not empty and not whitespace only.
var genAnchor = rapid.Custom(func(t *rapid.T) string {
	s := genText.Draw(t, "raw")
	if strings.TrimFunc(s, isWS) == "" {
		s += "anchor"
	}
	return s
})

var genChunk = rapid.Custom(func(t *rapid.T) patch.Chunk {
	c := patch.Chunk{
		Anchors: rapid.SliceOfN(genAnchor, 0, 3).Draw(t, "anchors"),
		EOF:     rapid.Bool().Draw(t, "eof"),
	}
	n := rapid.IntRange(1, 5).Draw(t, "lines")
	for range n {
		c.Lines = append(c.Lines, patch.Line{
			Op:   rapid.SampledFrom([]patch.Op{patch.Context, patch.Insert, patch.Remove}).Draw(t, "op"),
			Text: genText.Draw(t, "text"),
		})
	}
	return c
})

var genHunk = rapid.Custom(func(t *rapid.T) patch.Hunk {
	h := patch.Hunk{Path: genPath.Draw(t, "path")}
	switch rapid.IntRange(0, 2).Draw(t, "kind") {
	case 0:
		h.Kind = patch.AddFile
		for _, l := range rapid.SliceOfN(genText, 0, 4).Draw(t, "contents") {
			h.Contents += l + "\n"
		}
	case 1:
		h.Kind = patch.DeleteFile
	default:
		h.Kind = patch.UpdateFile
		if rapid.Bool().Draw(t, "move") {
			h.MoveTo = genPath.Draw(t, "moveTo")
		}
		h.Chunks = rapid.SliceOfN(genChunk, 1, 4).Draw(t, "chunks")
	}
	return h
})

// genPatch draws a valid patch built in code.
var genPatch = rapid.Custom(func(t *rapid.T) *patch.Patch {
	return &patch.Patch{Hunks: rapid.SliceOfN(genHunk, 0, 5).Draw(t, "hunks")}
})

// Lines a model might write, valid and not, for texts that are patch-like but not always
// patches.
var patchishLines = []string{
	"*** Begin Patch", "*** End Patch", " *** End Patch ", "\t*** Begin Patch", "*** Add File: a",
	"*** Add File:", "  *** Update File: b", "*** Update File:b", "*** Delete File: c", "*** Move to: d",
	"*** Move to:", "@@", "@@ x", "@@x", "@@ ", "@@ \t", "*** End of File", "*** End of File  ", "+x", "+",
	"-y", "-", " z", " ", "", "\t", "bad", "<<EOF", "<<'EOF'", `cat <<"P"`, "EOF", "P", "+\r", "x\r",
	"\uFEFF*** Begin Patch", "*** Frobnicate File: f", "***", "*** Add File: a\x00", "+é✅",
}

var genPatchish = rapid.Custom(func(t *rapid.T) string {
	var ls []string
	if rapid.Bool().Draw(t, "fromPatch") {
		// A valid patch's text with a few lines mutated: near-valid input reaches deep
		// into the parser.
		ls = strings.Split(strings.TrimSuffix(patch.Format(genPatch.Draw(t, "patch")), "\n"), "\n")
		for range rapid.IntRange(0, 3).Draw(t, "mutations") {
			i := rapid.IntRange(0, len(ls)-1).Draw(t, "at")
			switch rapid.IntRange(0, 3).Draw(t, "mutation") {
			case 0:
				ls = append(ls[:i], ls[i+1:]...)
			case 1:
				ls = append(ls[:i], append([]string{rapid.SampledFrom(patchishLines).Draw(t, "insert")}, ls[i:]...)...)
			case 2:
				ls[i] = rapid.SampledFrom([]string{" ", "\t", "\u00a0"}).Draw(t, "pad") + ls[i]
			default:
				ls[i] += rapid.SampledFrom([]string{" ", "\r", "\t"}).Draw(t, "suffix")
			}
			if len(ls) == 0 {
				break
			}
		}
	} else {
		ls = rapid.SliceOfN(rapid.SampledFrom(patchishLines), 0, 14).Draw(t, "lines")
		if rapid.Bool().Draw(t, "envelope") {
			ls = append(append([]string{"*** Begin Patch"}, ls...), "*** End Patch")
		}
	}
	sep := rapid.SampledFrom([]string{"\n", "\r\n"}).Draw(t, "sep")
	return strings.Join(ls, sep) + rapid.SampledFrom([]string{"", "\n", "\n\n"}).Draw(t, "tail")
})

// checkParse asserts the parser's contract on one input (properties 1, 2 and 3 of the spec):
// a *Patch that validates and round-trips through Format, or an invalid-kind *Error with a
// line number inside the text.
func checkParse(t interface {
	Helper()
	Fatalf(string, ...any)
}, text string) {
	t.Helper()
	p, err := patch.Parse(text)
	if err != nil {
		var pe *patch.Error
		if !errors.As(err, &pe) || pe.Kind != patch.KindInvalid || !errors.Is(err, patch.ErrInvalid) {
			t.Fatalf("Parse(%q) error %v is not an invalid-kind *patch.Error", text, err)
		}
		if n := strings.Count(text, "\n") + 1; pe.Line < 1 || pe.Line > n {
			t.Fatalf("Parse(%q): Line %d outside 1..%d (%v)", text, pe.Line, n, err)
		}
		if !strings.HasPrefix(pe.Msg, "Invalid patch") {
			t.Fatalf("Parse(%q): message %q lacks the Invalid patch prefix", text, pe.Msg)
		}
		return
	}
	if p == nil {
		t.Fatalf("Parse(%q) = nil, nil", text)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("Parse(%q) returned a patch that does not validate: %v", text, err)
	}
	once := patch.Format(p)
	q, err := patch.Parse(once)
	if err != nil || !patch.Equal(p, q) {
		t.Fatalf("Parse(Format(Parse(%q))) = %v, %v; want %#v\nformatted: %q", text, q, err, p, once)
	}
	if twice := patch.Format(q); twice != once {
		t.Fatalf("Format is not a fixpoint for %q:\n%q\n%q", text, once, twice)
	}
}

// propRoundTrip is property 2: every valid patch built in code survives Format then Parse.
func propRoundTrip(t *rapid.T) {
	p := genPatch.Draw(t, "patch")
	if err := p.Validate(); err != nil {
		t.Fatalf("generated patch does not validate: %v", err)
	}
	text := patch.Format(p)
	got, err := patch.Parse(text)
	if err != nil {
		t.Fatalf("Parse(Format(p)) error: %v\n%q", err, text)
	}
	if !patch.Equal(got, p) {
		t.Fatalf("Parse(Format(p)) != p\ntext: %q\ngot:  %#v\nwant: %#v", text, got, p)
	}
}

// propParseTotal is properties 1 and 3 over patch-like text.
func propParseTotal(t *rapid.T) {
	checkParse(t, genPatchish.Draw(t, "text"))
}

// propParseArbitrary is property 1 over arbitrary strings.
func propParseArbitrary(t *rapid.T) {
	checkParse(t, rapid.String().Draw(t, "text"))
}

func TestParseProperties(t *testing.T) {
	t.Run("P2_round_trip", rapid.MakeCheck(propRoundTrip))
	t.Run("P1_P3_E36_total_and_fixpoint_patchish", rapid.MakeCheck(propParseTotal))
	t.Run("P1_total_arbitrary", rapid.MakeCheck(propParseArbitrary))
}

// FuzzParse feeds raw text to Parse: it must never panic, must return an invalid-kind error
// with an in-range line, or a patch that round-trips through Format (Parse→Format→Parse) and
// whose rendering is a fixpoint. Seeds: keep in sync with ExampleParse and ExampleFormat;
// more seeds (the Codex scenarios and parser edge cases) are in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add(examplePatch)
	f.Add("*** Begin Patch\n*** Add File: hello.txt\n+Hello\n+\n+world\n*** Delete File: old.txt\n*** End Patch\n")
	f.Add("<<'EOF'\n*** Begin Patch\n*** Update File: a\n@@ class A\n@@ def m():\n-x\n+y\n*** End of File\n*** End Patch\nEOF\n")
	f.Add(" *** Begin Patch\r\n*** Update File:a\r\n x\r\n\r\n+\r\r\n*** End Patch ")
	f.Fuzz(func(t *testing.T, text string) {
		checkParse(t, text)
	})
}

// FuzzFormat runs the round-trip property on fuzzer-driven patches built in code.
func FuzzFormat(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propRoundTrip))
}
