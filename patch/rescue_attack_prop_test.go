package patch

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// occurrences returns the starts of seq in file.
func occurrences(file, seq []string) []int {
	var out []int
	if len(seq) == 0 {
		return nil
	}
	for i := 0; i+len(seq) <= len(file); i++ {
		if slices.Equal(file[i:i+len(seq)], seq) {
			out = append(out, i)
		}
	}
	return out
}

// propAttack: intended file or refusal, never a third outcome.
func propAttack(t *rapid.T) {
	vocab := []string{"func f() {", "\tstmt(1)", "\tstmt(2)", "\tstmt(3)", "}", "", "\treturn nil", "\tx := y"}
	n := rapid.IntRange(1, 30).Draw(t, "n")
	file := make([]string, n)
	for i := range file {
		file[i] = vocab[rapid.IntRange(0, len(vocab)-1).Draw(t, "v")]
	}
	lo := rapid.IntRange(0, n-1).Draw(t, "lo")
	hi := rapid.IntRange(lo+1, min(n, lo+7)).Draw(t, "hi")
	var body []Line
	var intended []string
	intended = append(intended, file[:lo]...)
	nin := 0
	ins := func() {
		if rapid.IntRange(0, 2).Draw(t, "ins") == 0 {
			s := fmt.Sprintf("\tnew(%d)", nin)
			nin++
			body = append(body, Line{Op: Insert, Text: s})
			intended = append(intended, s)
		}
	}
	for i := lo; i < hi; i++ {
		ins()
		if rapid.IntRange(0, 3).Draw(t, "rm") == 0 {
			body = append(body, Line{Op: Remove, Text: file[i]})
		} else {
			body = append(body, Line{Op: Context, Text: file[i]})
			intended = append(intended, file[i])
		}
	}
	ins()
	intended = append(intended, file[hi:]...)
	changed := slices.ContainsFunc(body, func(l Line) bool { return l.Op != Context })
	if !changed {
		t.Skip("no change")
	}
	eof := false
	if hi == n && rapid.Bool().Draw(t, "eof") {
		eof = true
	}
	pert := rapid.IntRange(0, 4).Draw(t, "perturbation")
	var ctxIdx, rmIdx []int
	for i, l := range body {
		switch l.Op {
		case Context:
			ctxIdx = append(ctxIdx, i)
		case Remove:
			rmIdx = append(rmIdx, i)
		}
	}
	mustRefuse := false
	switch {
	case pert == 1 && len(ctxIdx) > 0:
		k := ctxIdx[rapid.IntRange(0, len(ctxIdx)-1).Draw(t, "at")]
		if k > 0 && k+1 < len(body) && body[k-1].Op != Context && body[k+1].Op == Insert {
			t.Skip("reads as a replacement, as diffs write one")
		}
		body = slices.Delete(body, k, k+1)
	case pert == 2:
		k := rapid.IntRange(0, len(body)).Draw(t, "at")
		body = slices.Insert(body, k, Line{Op: Context, Text: "\tinvented()"})
	case pert == 3 && len(ctxIdx) > 0:
		k := ctxIdx[rapid.IntRange(0, len(ctxIdx)-1).Draw(t, "at")]
		body[k].Text += " // edited"
	case pert == 4 && len(rmIdx) > 0:
		k := rmIdx[rapid.IntRange(0, len(rmIdx)-1).Draw(t, "at")]
		body[k].Text += " // edited"
		mustRefuse = true
	}
	var old, neu []string
	for _, l := range body {
		if l.Op != Insert {
			old = append(old, l.Text)
		}
		if l.Op != Remove {
			neu = append(neu, l.Text)
		}
	}
	p := &Patch{Hunks: []Hunk{{Kind: UpdateFile, Path: "f.txt", Chunks: []Chunk{{Lines: body, EOF: eof}}}}}
	text := Format(p)
	orig := joinFile(file)
	mfs, a := propApplier(t, map[string][]byte{"f.txt": orig})
	res, err := a.Apply(context.Background(), text)
	got := readMem(mfs, "f.txt")
	if err != nil {
		if got != string(orig) {
			t.Fatalf("refused (%v) but wrote %q", err, got)
		}
		return
	}
	if got == string(joinFile(intended)) && !mustRefuse {
		return
	}
	// The literal reading: the perturbed old side found exactly elsewhere.
	for _, at := range occurrences(file, old) {
		alt := slices.Concat(file[:at], neu, file[at+len(old):])
		if got == string(joinFile(alt)) && (!eof || at+len(old) == n) {
			return
		}
	}
	// The literal reading of Codex's trailing-blank retry: the old side without its final
	// blank found exactly where it ends the file.
	if k := len(old) - 1; k > 0 && old[k] == "" && body[len(body)-1].Op == Context {
		rold, rneu := old[:k], neu[:len(neu)-1]
		if at := n - k; at >= 0 && slices.Equal(file[at:], rold) && got == string(joinFile(slices.Concat(file[:at], rneu))) {
			return
		}
	}
	if len(old) == 0 {
		return
	}
	t.Fatalf("third outcome\nfile:\n%q\npatch:\n%s\ngot:\n%q\nintended:\n%q\nreport %+v", file, text, got, intended, res.Report)
}

// TestAttackPerturbedContext: files drawn from a tiny vocabulary (so near-duplicate blocks and
// runs of equal lines are the rule), one chunk of removed, added and context lines taken from
// them, then one context line deleted, invented or edited, or one removed line edited. The
// result must be the intended file (or the literal reading where the perturbed lines occur
// exactly elsewhere), or a refusal with nothing written.
func TestAttackPerturbedContext(t *testing.T) {
	rapid.Check(t, propAttack)
}
