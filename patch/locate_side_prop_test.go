package patch

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// reindentCode draws nested code: statements and blocks closed by "}" lines, so that closers
// at several depths stand side by side.
func reindentCode(t *rapid.T, depth int, budget *int, out []string) []string {
	ind := strings.Repeat("\t", depth)
	for k := rapid.IntRange(1, 3).Draw(t, "stmts"); k > 0 && *budget > 0; k-- {
		*budget--
		switch op := rapid.IntRange(0, 3).Draw(t, "kind"); {
		case op == 0 && depth < 3:
			out = append(out, fmt.Sprintf("%sif c%d {", ind, *budget))
			out = reindentCode(t, depth+1, budget, out)
			out = append(out, ind+"}")
		case op == 1:
			out = append(out, ind+"return nil")
		default:
			out = append(out, fmt.Sprintf("%ss%d()", ind, *budget))
		}
	}
	return out
}

// propReindentOracle: the model read A (nested code) and wrote P (one to three lines of
// context: lines inserted, changed or deleted); meanwhile the file was wrapped in another block
// (every line indented one more tab, an opening line above and a closing "}" below) or taken
// out of one, sometimes with one line of its own changed. Whenever git's 3-way merge is clean and Apply writes, it must write the merge;
// otherwise a write must remove only lines P names, and a refusal writes nothing. The
// re-indented closers make the loose match's side of a closer a guess.
func propReindentOracle(t *rapid.T, dir string, outcomes map[string]int) {
	budget := rapid.IntRange(3, 14).Draw(t, "size")
	code := []string{"func f() {"}
	code = reindentCode(t, 1, &budget, code)
	code = append(code, "}")
	wrapped := []string{"func wrap() {"}
	for _, l := range code {
		wrapped = append(wrapped, "\t"+l)
	}
	wrapped = append(wrapped, "}")
	// The other edit wraps the code in a block, or (dedent) takes the block away.
	a, theirs := code, wrapped
	if rapid.Bool().Draw(t, "dedent") {
		a, theirs = wrapped, slices.Clone(code)
	}
	// ours: one or two fresh lines inserted, or a line changed, at the depth of its place
	b := slices.Clone(a)
	at := rapid.IntRange(1, len(b)-1).Draw(t, "at")
	depth := len(b[at]) - len(strings.TrimLeft(b[at], "\t"))
	if strings.HasPrefix(strings.TrimLeft(b[at], "\t"), "}") {
		depth++ // an insertion above a closer goes into its block
	}
	fresh := strings.Repeat("\t", depth) + "added()"
	switch rapid.IntRange(0, 3).Draw(t, "ours") {
	case 0:
		b = slices.Insert(b, at, fresh)
	case 1:
		b = slices.Insert(b, at, fresh, strings.Repeat("\t", depth)+"added2()")
	case 2:
		b[at] = fresh
	default:
		b = slices.Delete(b, at, at+1)
	}
	if rapid.Bool().Draw(t, "theirs_edit") {
		i := rapid.IntRange(1, len(theirs)-2).Draw(t, "theirs_at")
		theirs[i] += " // theirs"
	}
	ops := lineDiff(a, b)
	p := chunksPatch("f.go", buildChunks(t, a, ops, rapid.IntRange(1, 3).Draw(t, "context"), false))
	text := Format(p)
	before := joinFile(theirs)
	merged, clean := gitMerge(t, dir, before, joinFile(a), joinFile(b))
	if clean && bytes.Equal(merged, before) {
		t.Skip("git takes the change as made by both sides") // as the history corpus does
	}
	m, ap := propApplier(t, map[string][]byte{"f.go": before})
	res, err := ap.Apply(context.Background(), text)
	got := readMem(m, "f.go")
	switch {
	case err != nil && got != string(before):
		t.Fatalf("refused (%v) but wrote %q", err, got)
	case err != nil && clean:
		outcomes["clean merge, refused"]++
	case err != nil:
		outcomes["conflict, refused"]++
	case clean && !bytes.Equal([]byte(got), merged):
		t.Fatalf("wrong result on a clean merge\nA      %q\nB      %q\nT      %q\npatch:\n%s\ngot    %q\nmerged %q\nreport %+v", a, b, theirs, text, got, merged, res.Report)
	case clean:
		outcomes["clean merge, applied"]++
	default:
		checkRemovalSound(t, p, res.Report, before, []byte(got))
		outcomes["conflict, written"]++
	}
}

// TestReindentOracleProperty runs propReindentOracle against git merge-file (skipped without
// git).
func TestReindentOracleProperty(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH: the 3-way merge oracle is missing (Debian: apt-get install git)")
	}
	dir := t.TempDir()
	outcomes := map[string]int{}
	rapid.Check(t, func(t *rapid.T) { propReindentOracle(t, dir, outcomes) })
	t.Logf("outcomes: %v", outcomes)
	if outcomes["clean merge, applied"]+outcomes["clean merge, refused"] == 0 {
		t.Errorf("the generator needs adjusting: %v", outcomes)
	}
}
