package patch_test

// A second differential property against the Codex binary, with generators the first one
// (TestCodexOracleRandom) lacks: files made of duplicated and near-duplicated blocks, lines
// holding typographic characters that the patch writes in ASCII (as models do), CRLF files
// without a final newline, and patches of several sections on one file mixing Update, Move,
// Delete and Add in sequence (each written against the state the earlier sections leave).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/patch"
)

// blockAlphabet holds lines with the characters the unicode levels map (curly quotes, dashes,
// an ellipsis, no-break spaces) beside their ASCII forms, so a block and its near-duplicate
// differ only in what the ladder tolerates.
var blockAlphabet = []string{
	"msg = \u201chello\u201d", `msg = "hello"`, "a \u2013 b", "a - b", "wait\u2026", "wait...",
	"x\u00a0= 1", "x = 1", "func f() {", "}", "", "\treturn nil", "  indented",
}

// asciiLine maps what the ladder's unicode levels map, as a model writes the line.
var asciiLine = strings.NewReplacer("\u201c", `"`, "\u201d", `"`, "\u2013", "-", "\u2026", "...", "\u00a0", " ")

// genBlockLines draws a file made of 1–4 blocks, each repeated up to three times, a repeat
// sometimes with one line changed.
func genBlockLines(t *rapid.T) []string {
	var lines []string
	for range rapid.IntRange(1, 4).Draw(t, "blocks") {
		blk := rapid.SliceOfN(rapid.SampledFrom(blockAlphabet), 1, 4).Draw(t, "block")
		for r := range rapid.IntRange(1, 3).Draw(t, "repeats") {
			b := slices.Clone(blk)
			if r > 0 && rapid.Bool().Draw(t, "nearDup") {
				b[rapid.IntRange(0, len(b)-1).Draw(t, "nearAt")] = rapid.SampledFrom(blockAlphabet).Draw(t, "nearLine")
			}
			lines = append(lines, b...)
		}
	}
	return lines
}

// asciiDrift rewrites some context, removed and "@@" anchor lines of a section in ASCII.
func asciiDrift(t *rapid.T, section string) string {
	ls := strings.SplitAfter(section, "\n")
	for i, l := range ls {
		if (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "-") || strings.HasPrefix(l, "@@ ")) && rapid.IntRange(0, 3).Draw(t, "ascii") == 0 {
			ls[i] = asciiLine.Replace(l)
		}
	}
	return strings.Join(ls, "")
}

// genSectionCase draws one or two files and 1–6 sections over them, each written against
// the state the earlier ones leave.
func genSectionCase(t *rapid.T) oracleCase {
	var c oracleCase
	state := map[string][]string{} // path → lines (nil entry absent = no file)
	var paths []string
	for i := range rapid.IntRange(1, 2).Draw(t, "files") {
		f := oracleFile{
			path:    []string{"a.txt", "b.txt"}[i],
			lines:   genBlockLines(t),
			eol:     rapid.SampledFrom([]string{"\n", "\r\n"}).Draw(t, "eol"),
			finalNL: rapid.IntRange(0, 2).Draw(t, "finalNL") > 0,
		}
		c.files = append(c.files, f)
		state[f.path] = f.lines
		paths = append(paths, f.path)
	}
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for range rapid.IntRange(1, 6).Draw(t, "sections") {
		p := rapid.SampledFrom(paths).Draw(t, "path")
		lines, exists := state[p]
		switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
		case !exists || op == 0:
			// Add (over an existing file: refused by default, replaced in compat mode).
			added := genBlockLines(t)
			b.WriteString("*** Add File: " + p + "\n")
			for _, l := range added {
				b.WriteString("+" + l + "\n")
			}
			state[p] = added
		case op == 1:
			fmt.Fprintf(&b, "*** Delete File: %s\n", p)
			delete(state, p)
		default:
			var sec strings.Builder
			after, dst := writeOracleUpdate(t, &sec, oracleFile{path: p, lines: lines})
			b.WriteString(asciiDrift(t, sec.String()))
			if dst != p {
				delete(state, p)
				if !slices.Contains(paths, dst) {
					paths = append(paths, dst)
				}
			}
			state[dst] = after
		}
	}
	b.WriteString("*** End Patch\n")
	c.text = b.String()
	return c
}

// TestCodexOracleSections: on genSectionCase's patches, Rewrite succeeds exactly when Apply
// does (same options), and the Codex binary applying Rewrite's text gives Apply's tree, in
// compat mode always and with default options when every file ends with a newline.
func TestCodexOracleSections(t *testing.T) {
	bin := oracleBinary(t)
	base := t.TempDir()
	root := testenv.Abs("/w/root")
	var compared, defaults, refused int
	rapid.Check(t, func(rt *rapid.T) {
		c := genSectionCase(rt)
		ctx := context.Background()
		run := func(opts ...patch.Option) (*patch.Rewritten, map[string]oracleNode, error) {
			a, err := patch.New(oracleMem(rt, root, c), root, opts...)
			if err != nil {
				rt.Fatal(err)
			}
			rw, rwErr := a.Rewrite(ctx, c.text)
			m := oracleMem(rt, root, c)
			a2, _ := patch.New(m, root, opts...)
			_, applyErr := a2.Apply(ctx, c.text)
			if (rwErr == nil) != (applyErr == nil) {
				rt.Fatalf("Rewrite and Apply disagree: Rewrite %v, Apply %v\nfiles:\n%s\npatch:\n%s", rwErr, applyErr, c.describe(), c.text)
			}
			return rw, oracleSimplify(m.TreeUnder(root)), applyErr
		}
		check := func(mode string, rw *patch.Rewritten, ours map[string]oracleNode) {
			dir := oracleDisk(rt, base, c)
			defer os.RemoveAll(dir)
			out := runOracle(rt, bin, dir, rw.Text)
			got := oracleReadDir(rt, dir)
			if mode == "default" {
				// Codex creates the parent of a file a later section deletes again; an atomic
				// Apply never writes that file, so it never creates the directory. Only
				// directories holding files are compared.
				ours, got = filesOnly(ours), filesOnly(got)
			}
			if diff := cmp.Diff(ours, got); diff != "" {
				rt.Fatalf("%s: Codex(Rewrite(P)) differs from Apply(P) (-ours +codex):\n%s\nfiles:\n%s\npatch:\n%s\nrewritten:\n%s\ncodex output:\n%s",
					mode, diff, c.describe(), c.text, rw.Text, out)
			}
		}
		rw, ours, err := run(patch.WithCodexCompat())
		if err != nil {
			var pe *patch.Error
			if !errors.As(err, &pe) {
				rt.Fatalf("not a *patch.Error: %v", err)
			}
			refused++
		} else {
			check("compat", rw, ours)
			compared++
		}
		if slices.ContainsFunc(c.files, func(f oracleFile) bool { return !f.finalNL && len(f.lines) > 0 }) {
			return
		}
		drw, dours, derr := run()
		if derr == nil {
			check("default", drw, dours)
			defaults++
		}
	})
	t.Logf("compared with the Codex binary: %d compat rewrites, %d default rewrites; %d refused in compat mode", compared, defaults, refused)
}

// filesOnly drops the directory entries of a tree (a file's path still names its parents).
func filesOnly(tr map[string]oracleNode) map[string]oracleNode {
	out := map[string]oracleNode{}
	for k, n := range tr {
		if !n.Dir {
			out[k] = n
		}
	}
	return out
}
