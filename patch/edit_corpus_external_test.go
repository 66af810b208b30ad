package patch_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// The edit corpus (testdata/editcorpus, written by patch/internal/editcorpus): edits whose
// old text was taken from one revision of a real project's file and applied to a later
// revision, judged against git's 3-way merge.
type editCorpus struct {
	Repos []struct {
		Name, Commit, Licence string
	} `json:"repos"`
	Texts     []string `json:"texts"`
	Scenarios []struct {
		Repo, Path, B, O string
		Theirs, Merged   int
		Old, New         string
		Drifted          bool
	} `json:"scenarios"`
}

func loadEditCorpus(t *testing.T) *editCorpus {
	f, err := os.Open(filepath.Join("testdata", "editcorpus", "corpus.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var c editCorpus
	if err := json.NewDecoder(zr).Decode(&c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// exactRule is Claude Code's: old must occur exactly once (as written), else the edit fails.
func exactRule(theirs, old, nw string) (string, bool) {
	if strings.Count(theirs, old) != 1 || countExact(theirs, old) != 1 {
		return "", false
	}
	return strings.Replace(theirs, old, nw, 1), true
}

type editOutcome string

const (
	edCorrect  editOutcome = "correct"
	edMissed   editOutcome = "missed"
	edWrong    editOutcome = "WRONG"
	edRefused  editOutcome = "refused on a conflict"
	edConflict editOutcome = "writes on a conflict"
)

func judgeEdit(theirs string, merged *string, after string, wrote bool) editOutcome {
	switch {
	case merged == nil && wrote:
		return edConflict
	case merged == nil:
		return edRefused
	case wrote && after == *merged:
		return edCorrect
	case !wrote && theirs == *merged:
		return edCorrect // the change was there already: nothing to write
	case !wrote:
		return edMissed
	}
	return edWrong
}

// TestEditCorpus scores the edit operation against the exact-unique rule (and OpenCode's
// replacer chain, when HARNESSKIT_OPENCODE_EDIT names OpenCode's source) on the corpus, per
// repository and per kind (old as written in the later file, or drifted). The edit must
// never write a wrong result, must do at least as well as the exact rule, and the corpus
// must keep at least 300 edits from 3 projects.
func TestEditCorpus(t *testing.T) {
	c := loadEditCorpus(t)
	if len(c.Scenarios) < 300 || len(c.Repos) < 3 {
		t.Fatalf("corpus has %d edits from %d projects, want at least 300 from 3", len(c.Scenarios), len(c.Repos))
	}
	type key struct{ applier, group string }
	tally := map[key]map[editOutcome]int{}
	add := func(applier, group string, o editOutcome) {
		k := key{applier, group}
		if tally[k] == nil {
			tally[k] = map[editOutcome]int{}
		}
		tally[k][o]++
	}
	appliers := []string{"harnesskit edit", "exact unique (Claude Code)"}
	oracle := openCodeOracle(t, c)
	if oracle != nil {
		appliers = append(appliers, "OpenCode replacers")
	}
	for i, sc := range c.Scenarios {
		theirs := c.Texts[sc.Theirs]
		var merged *string
		if sc.Merged >= 0 {
			merged = &c.Texts[sc.Merged]
		}
		kind := "exact"
		if sc.Drifted {
			kind = "drifted"
		}
		results := map[string]editOutcome{}
		out, _, err := patch.ApplyEdits(sc.Path, []byte(theirs), []patch.Edit{{Old: sc.Old, New: sc.New}})
		results[appliers[0]] = judgeEdit(theirs, merged, string(out), err == nil && string(out) != theirs)
		eo, ok := exactRule(theirs, sc.Old, sc.New)
		results[appliers[1]] = judgeEdit(theirs, merged, eo, ok && eo != theirs)
		if oracle != nil {
			r := oracle[i]
			results[appliers[2]] = judgeEdit(theirs, merged, r.Out, r.OK && r.Out != theirs)
		}
		for _, a := range appliers {
			o := results[a]
			add(a, "all", o)
			add(a, sc.Repo, o)
			add(a, kind, o)
			if o == edWrong || testing.Verbose() && a == appliers[0] {
				t.Logf("%d %s %s (%s b=%.8s o=%.8s): %s", i, sc.Repo, sc.Path, kind, sc.B, sc.O, a+": "+string(o))
			}
		}
	}
	groups := []string{"all", "exact", "drifted"}
	for _, r := range c.Repos {
		groups = append(groups, r.Name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d edits from %d projects\n| group | applier | correct | missed | WRONG | refused on a conflict | writes on a conflict |\n|---|---|---|---|---|---|---|\n",
		len(c.Scenarios), len(c.Repos))
	for _, g := range groups {
		for _, a := range appliers {
			m := tally[key{a, g}]
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d |\n", g, a, m[edCorrect], m[edMissed], m[edWrong], m[edRefused], m[edConflict])
		}
	}
	t.Log("\n" + b.String())
	ours, exact := tally[key{appliers[0], "all"}], tally[key{appliers[1], "all"}]
	if ours[edWrong] > 0 || ours[edConflict] > 0 {
		t.Errorf("the edit wrote %d wrong results and %d on conflicts", ours[edWrong], ours[edConflict])
	}
	if ours[edCorrect] < exact[edCorrect] {
		t.Errorf("the edit is correct %d times, the exact rule %d", ours[edCorrect], exact[edCorrect])
	}
}

// openCodeResult is what the oracle says of one edit: the file OpenCode's replace wrote, or
// the error it threw.
type openCodeResult struct {
	OK    bool   `json:"ok"`
	Out   string `json:"out"`
	Error string `json:"error"`
}

// openCodeOracle runs OpenCode's replacer chain on every edit of the corpus, once, when
// HARNESSKIT_OPENCODE_EDIT names OpenCode's published source: the opencode executable of
// its npm package or packages/opencode/src/tool/edit.ts of a checkout. The runner,
// testdata/editcorpus/oracle/opencode-oracle.mjs, takes the replace function out of that
// source at run time (OpenCode's code is run, never copied into this repository); it needs
// node and `npm ci --prefix testdata/editcorpus/oracle`. Without the variable the oracle is
// left out (nil) and the test says how to get it; with it, a runner that cannot run fails
// the test.
func openCodeOracle(t *testing.T, c *editCorpus) []openCodeResult {
	src := os.Getenv("HARNESSKIT_OPENCODE_EDIT")
	if src == "" {
		t.Log("OpenCode oracle left out: set HARNESSKIT_OPENCODE_EDIT to OpenCode's opencode executable or its packages/opencode/src/tool/edit.ts (see testdata/editcorpus/README.md)")
		return nil
	}
	src, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("testdata", "editcorpus", "oracle")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "typescript")); err != nil {
		t.Fatalf("HARNESSKIT_OPENCODE_EDIT is set but the oracle's parser is not installed: run npm ci --prefix patch/%s (%v)", filepath.ToSlash(dir), err)
	}
	type edit struct {
		Content string `json:"content"`
		Old     string `json:"old"`
		New     string `json:"new"`
	}
	edits := make([]edit, len(c.Scenarios))
	for i, sc := range c.Scenarios {
		edits[i] = edit{c.Texts[sc.Theirs], sc.Old, sc.New}
	}
	in, err := json.Marshal(edits)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join(dir, "opencode-oracle.mjs"), src)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the OpenCode oracle failed: %v\n%s", err, stderr.String())
	}
	t.Log(strings.TrimSpace(stderr.String()))
	var res []openCodeResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("the OpenCode oracle printed no result list: %v", err)
	}
	if len(res) != len(edits) {
		t.Fatalf("the OpenCode oracle answered %d edits of %d", len(res), len(edits))
	}
	return res
}

// TestOpenCodeOracleRunner attacks the runner behind the OpenCode column on sources of our
// own making, shaped as OpenCode's are: it must find the replace function by its message,
// take along exactly what it reaches, read a Bun executable's bundle chunk, and fail loudly
// (not as a refusal) when replace reaches an import or a name it did not take along.
func TestOpenCodeOracleRunner(t *testing.T) {
	dir := filepath.Join("testdata", "editcorpus", "oracle")
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "typescript")); err != nil {
		t.Skipf("the oracle's parser is not installed (npm ci --prefix patch/%s)", filepath.ToSlash(dir))
	}
	const tsSource = `import z from "zod"
import { Tool } from "./tool"
export const EditTool = Tool.define("edit", z.object({}))
export type Replacer = (content: string, find: string) => Generator<string, void, unknown>
const LIMIT: number = 1
export const Exact: Replacer = function* (_content, find) { yield find }
export const Trimmed: Replacer = function* (content, find) { for (const l of content.split("\n")) if (l.trim() === find.trim()) yield l }
function count(s: string, f: string): number { return s.split(f).length - 1 }
export function replace(content: string, oldString: string, newString: string, replaceAll = false): string {
  for (const replacer of [Exact, Trimmed]) {
    for (const search of replacer(content, oldString)) {
      if (count(content, search) === LIMIT) return content.replace(search, newString)
    }
  }
  throw new Error("Could not find oldString in the file. It must match exactly.")
}
`
	// The same shape as a minified bundle chunk inside an executable.
	const jsChunk = `// @bun
import{a as q}from"/$bunfs/root/chunk-1.js";var T=q.define("edit"),L=1,X=function*(o,e){yield e},Y=function*(o,e){for(let l of o.split("\n"))if(l.trim()===e.trim())yield l};function C(o,e){return o.split(e).length-1}function R(o,e,r,t=!1){for(let n of[X,Y])for(let y of n(o,e))if(C(o,y)===L)return o.replace(y,r);throw Error("Could not find oldString in the file. It must match exactly.")}export{R as r};
`
	edits := `[{"content":"a\n  b\nc\n","old":"b","new":"B"},{"content":"x\n x\n","old":"z","new":"y"}]`
	want := []openCodeResult{{OK: true, Out: "a\n  B\nc\n"}, {Error: "Could not find oldString in the file. It must match exactly."}}
	for _, tc := range []struct {
		name, file, source string
		wantFail           string // a substring of stderr when the runner must fail
	}{
		{"typescript source", "edit.ts", tsSource, ""},
		{"bun executable", "opencode", "\x7fELF\x00\x00runtime" + jsChunk + "\x00/$bunfs/root/chunk-2.js\x00", ""},
		{"replace reaches an import", "edit.ts", strings.Replace(tsSource, "=== LIMIT", "=== Tool.n", 1), "reaches the import Tool"},
		{"replace reaches a name it did not take", "edit.ts", strings.Replace(tsSource, "=== LIMIT", "=== missing()", 1), "ReferenceError"},
		{"two functions hold the message", "edit.ts", tsSource + "function again() { throw new Error(\"Could not find oldString in the file\") }\n", "2 top-level functions"},
		{"no replace function", "edit.ts", "export const x = 1\n", "does not hold OpenCode's replace function"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(src, []byte(tc.source), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("node", filepath.Join(dir, "opencode-oracle.mjs"), src)
			cmd.Stdin = strings.NewReader(edits)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if tc.wantFail != "" {
				if err == nil || !strings.Contains(stderr.String(), tc.wantFail) {
					t.Fatalf("runner: err %v, stderr %q; want a failure saying %q", err, stderr.String(), tc.wantFail)
				}
				return
			}
			if err != nil {
				t.Fatalf("runner: %v\n%s", err, stderr.String())
			}
			var got []openCodeResult
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("results %+v, want %+v", got, want)
			}
		})
	}
}
