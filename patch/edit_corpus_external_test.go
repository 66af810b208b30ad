package patch_test

import (
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
// replacer chain, when HARNESSKIT_OPENCODE_EDIT names a runner for it) on the corpus, per
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
	oracle := openCodeRunner(t)
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
			oo, ok := oracle(theirs, sc.Old, sc.New)
			results[appliers[2]] = judgeEdit(theirs, merged, oo, ok && oo != theirs)
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

// openCodeRunner returns OpenCode's replacer chain as an oracle when HARNESSKIT_OPENCODE_EDIT
// names a command that reads {"content","old","new"} as JSON on stdin and prints the result
// of OpenCode's replace(content, old, new) (or fails when it throws); nil otherwise, with the
// test logging how to get one. OpenCode's code is run, never copied into this repository.
func openCodeRunner(t *testing.T) func(content, old, nw string) (string, bool) {
	bin := os.Getenv("HARNESSKIT_OPENCODE_EDIT")
	if bin == "" {
		t.Log("OpenCode oracle left out: set HARNESSKIT_OPENCODE_EDIT to a command that runs the replace function of OpenCode's packages/opencode/src/tool/edit.ts (see testdata/editcorpus/README.md)")
		return nil
	}
	return func(content, old, nw string) (string, bool) {
		in, _ := json.Marshal(map[string]string{"content": content, "old": old, "new": nw})
		cmd := exec.Command(bin)
		cmd.Stdin = strings.NewReader(string(in))
		out, err := cmd.Output()
		if err != nil {
			return "", false
		}
		return string(out), true
	}
}
