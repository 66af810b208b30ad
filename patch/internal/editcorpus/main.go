// Command editcorpus mines git histories for string-replacement edits written against one
// revision of a file and applied to a later one. The truth is git's 3-way merge.
//
//	go run ./patch/internal/editcorpus -out patch/testdata/editcorpus/corpus.json.gz NAME=REPO.git[@LICENCE] ...
//
// For a file's versions v0, v1, … on the first-parent history (oldest first), a revision B =
// v(i) and a later one O = v(j) (j = i+1 … i+3): one hunk of the change v(j) → v(j+1), carried
// back onto B with git merge-file (skipped when that conflicts), is the change the edit's
// author wanted. The edit is that hunk as B has it: old is B's changed lines with 1 to 3
// lines of context on each side, new the same lines after the change; old ends with a line
// break in every other edit. It is applied to O; the truth is git merge-file of O and B with
// the change (a conflict means only a refusal is safe).
//
// Scenarios whose old text is in O as written (exact) and those where it is not (drifted)
// are both kept, the drifted ones first, up to -n per repository. The output is one
// gzipped JSON document: the repositories (name, commit, licence), the file texts (each
// once) and the scenarios that name them. The runner is TestEditCorpus in package patch.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/harnesskit/harnesskit/internal/udiff"
)

// Corpus is the file's document.
type Corpus struct {
	Repos     []Repo     `json:"repos"`
	Texts     []string   `json:"texts"`
	Scenarios []Scenario `json:"scenarios"`
}

// Repo is one mined repository.
type Repo struct {
	Name    string `json:"name"`
	Commit  string `json:"commit"`
	Licence string `json:"licence"`
}

// Scenario is one edit: Theirs (O) and Merged (the truth, -1 on a conflict) index Texts.
type Scenario struct {
	Repo    string `json:"repo"`
	Path    string `json:"path"`
	B       string `json:"b"` // commit of the revision old was taken from
	O       string `json:"o"` // commit of the revision it is applied to
	Theirs  int    `json:"theirs"`
	Merged  int    `json:"merged"`
	Old     string `json:"old"`
	New     string `json:"new"`
	Drifted bool   `json:"drifted"` // old is not in O as written
}

func main() {
	out := flag.String("out", "", "output file (.json.gz)")
	n := flag.Int("n", 120, "scenarios per repository")
	maxLines := flag.Int("max-lines", 2500, "skip files with more lines")
	exts := flag.String("ext", ".go,.py", "file extensions")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: editcorpus -out FILE NAME=REPO.git[@LICENCE] ...")
		os.Exit(2)
	}
	c := &Corpus{}
	texts := map[string]int{}
	text := func(s string) int {
		if i, ok := texts[s]; ok {
			return i
		}
		texts[s] = len(c.Texts)
		c.Texts = append(c.Texts, s)
		return texts[s]
	}
	for _, arg := range flag.Args() {
		name, rest, _ := strings.Cut(arg, "=")
		dir, lic, _ := strings.Cut(rest, "@")
		head := strings.TrimSpace(git(dir, "rev-parse", "HEAD"))
		c.Repos = append(c.Repos, Repo{Name: name, Commit: head, Licence: lic})
		scs := mine(dir, name, strings.Split(*exts, ","), *maxLines, *n)
		for _, s := range scs {
			s.sc.Theirs = text(s.theirs)
			s.sc.Merged = -1
			if !s.conflict {
				s.sc.Merged = text(s.merged)
			}
			c.Scenarios = append(c.Scenarios, s.sc)
		}
		fmt.Fprintf(os.Stderr, "%s: %d scenarios\n", name, len(scs))
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	enc := json.NewEncoder(zw)
	if err := enc.Encode(c); err != nil {
		panic(err)
	}
	zw.Close()
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		panic(err)
	}
	fmt.Fprintf(os.Stderr, "%d scenarios, %d texts, %d bytes\n", len(c.Scenarios), len(c.Texts), buf.Len())
}

func git(dir string, args ...string) string {
	cmd := exec.Command("git", append([]string{"--git-dir", dir}, args...)...)
	b, err := cmd.Output()
	if err != nil {
		panic(fmt.Sprintf("git %v: %v", args, err))
	}
	return string(b)
}

type mined struct {
	sc             Scenario
	theirs, merged string
	conflict       bool
}

type version struct{ commit, text string }

// mine walks the first-parent history of dir and returns up to n scenarios.
func mine(dir, name string, exts []string, maxLines, n int) []mined {
	log := git(dir, "log", "--first-parent", "--reverse", "--format=C %H", "--name-only", "--diff-filter=M", "--no-renames", "-n", "3000")
	byFile := map[string][]string{}
	var order []string
	var commit string
	for _, l := range strings.Split(log, "\n") {
		switch {
		case strings.HasPrefix(l, "C "):
			commit = l[2:]
		case l != "":
			ok := false
			for _, e := range exts {
				ok = ok || strings.HasSuffix(l, e)
			}
			if !ok {
				continue
			}
			if _, seen := byFile[l]; !seen {
				order = append(order, l)
			}
			byFile[l] = append(byFile[l], commit)
		}
	}
	var drifted, exact []mined
	perFile := map[string]int{}
	for _, path := range order {
		commits := byFile[path]
		if len(commits) < 3 {
			continue
		}
		vs := make([]version, 0, len(commits))
		for _, c := range commits {
			t := gitShow(dir, c, path)
			if t == "" || strings.Count(t, "\n") > maxLines || strings.Contains(t, "\r") {
				continue
			}
			vs = append(vs, version{c, t})
		}
		for i := 0; i+2 < len(vs); i++ {
			for gap := 1; gap <= 3 && i+gap+1 < len(vs); gap++ {
				if perFile[path] >= 8 {
					break
				}
				b, o, next := vs[i], vs[i+gap], vs[i+gap+1]
				for _, m := range scenarios(name, path, b, o, next, i+gap) {
					if m.sc.Drifted {
						drifted = append(drifted, m)
					} else {
						exact = append(exact, m)
					}
					perFile[path]++
				}
			}
		}
	}
	out := drifted
	if len(out) > n*2/3 {
		out = out[:n*2/3]
	}
	// exact ones spread over the history: every k-th
	need := n - len(out)
	if need > 0 && len(exact) > 0 {
		step := max(1, len(exact)/need)
		for i := 0; i < len(exact) && need > 0; i += step {
			out = append(out, exact[i])
			need--
		}
	}
	return out
}

func gitShow(dir, commit, path string) string {
	cmd := exec.Command("git", "--git-dir", dir, "show", commit+":"+path)
	b, err := cmd.Output()
	if err != nil {
		return ""
	}
	return string(b)
}

// scenarios builds the edits of the hunks of o → next, carried back onto b.
func scenarios(name, path string, b, o, next version, seed int) []mined {
	ol, nl := udiff.Lines(o.text), udiff.Lines(next.text)
	var out []mined
	for h, ch := range udiff.Compute(ol, nl) {
		if h >= 2 || ch.B-ch.A > 12 || len(ch.New) > 12 {
			continue
		}
		// o with this hunk only
		oh := strings.Join(ol[:ch.A], "") + strings.Join(ch.New, "") + strings.Join(ol[ch.B:], "")
		bEdit, conflict := mergeFile(b.text, o.text, oh)
		if conflict || bEdit == b.text {
			continue
		}
		bl, el := udiff.Lines(b.text), udiff.Lines(bEdit)
		bc := udiff.Compute(bl, el)
		if len(bc) != 1 {
			continue
		}
		c := bc[0]
		ctx := 1 + (seed+h)%3
		lo, hi := max(c.A-ctx, 0), min(c.B+ctx, len(bl))
		old := strings.Join(bl[lo:hi], "")
		nw := strings.Join(bl[lo:c.A], "") + strings.Join(c.New, "") + strings.Join(bl[c.B:hi], "")
		if (seed+h)%2 == 1 && strings.HasSuffix(old, "\n") && strings.HasSuffix(nw, "\n") {
			old, nw = old[:len(old)-1], nw[:len(nw)-1]
		}
		if strings.TrimSpace(old) == "" || old == nw {
			continue
		}
		merged, mconf := mergeFile(o.text, b.text, bEdit)
		out = append(out, mined{
			sc:       Scenario{Repo: name, Path: path, B: b.commit, O: o.commit, Old: old, New: nw, Drifted: !strings.Contains(o.text, old)},
			theirs:   o.text,
			merged:   merged,
			conflict: mconf,
		})
	}
	return out
}

// mergeFile runs git merge-file -p current base other.
func mergeFile(current, base, other string) (string, bool) {
	dir, err := os.MkdirTemp("", "editcorpus")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	names := []string{"current", "base", "other"}
	for i, t := range []string{current, base, other} {
		if err := os.WriteFile(filepath.Join(dir, names[i]), []byte(t), 0o644); err != nil {
			panic(err)
		}
	}
	cmd := exec.Command("git", "merge-file", "-p", "current", "base", "other")
	cmd.Dir = dir
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() > 0 && ee.ExitCode() < 128 {
		return "", true
	}
	if err != nil {
		panic(err)
	}
	return stdout.String(), false
}
