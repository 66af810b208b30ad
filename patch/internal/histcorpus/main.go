// Command histcorpus mines git histories for stale-patch scenarios: a patch written against
// one revision of a file, applied to another revision of that file that a different commit
// produced from the same base. The truth is git's 3-way merge (git merge-file): a clean merge
// is the one right result, a conflict means that only a refusal is safe.
//
//	go run ./patch/internal/histcorpus -out DIR REPO.git [REPO.git ...]
//
// Each scenario is a directory DIR/<repo>-<n>/ holding:
//
//	meta.json   where it comes from (repository, commits, path, source, clean or conflict)
//	base        the file the patch was written against
//	ours        base with the patch's change (what the patch's author wanted)
//	theirs      the file the patch is applied to
//	merged      git merge-file's result (clean merges only)
//	next        what the project's history has next, when it says (the merge commit's file)
//	patch.txt   the change base → ours in the apply_patch format (bare "@@" chunks, 3 lines of
//	            context, as a unified diff has them)
//	diff.txt    the same change as a unified diff, for GNU patch
//
// With -anchors, each chunk of patch.txt carries the line git names after its unified-diff
// header (the enclosing function's line, as "@@ func f() {") as its anchor, as models often
// write it; a chunk without one, or whose line git cut at 80 bytes, stays bare.
//
// Three sources, each deterministic (commits are visited in the order git lists them):
//
//   - merge: a merge commit M whose parents P1 and P2 both changed a file since their merge
//     base B: the change B → P2 applied to P1's file, and B → P1 applied to P2's; next = M's file.
//   - forward: three consecutive versions v0, v1, v2 of a file on the first-parent history. The
//     change v1 → v2 is carried back onto v0 with git merge-file (skipped when that conflicts),
//     giving a patch written against v0; it is applied to v1, as if the commit v0 → v1 had landed
//     while the patch was written. next = v2.
//   - pick: the change v1 → v2 applied to v0 (git cherry-pick's 3-way merge: base v1). This
//     source gives most of the conflicts.
//
// Controls (the patch applied to its own base) are added for one scenario in eight.
//
// The corpus holds other projects' source code: it is written outside the repository (for
// example under /work/scratch) and never committed. The runner is TestHistoryCorpus in package
// patch (-patch.histcorpus=DIR).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Meta describes one scenario (meta.json).
type Meta struct {
	Repo     string `json:"repo"`
	Source   string `json:"source"` // merge, forward, pick, control
	Path     string `json:"path"`
	Base     string `json:"base"`   // commit of base
	Ours     string `json:"ours"`   // commit of ours ("" when computed)
	Theirs   string `json:"theirs"` // commit of theirs
	Next     string `json:"next,omitempty"`
	Conflict bool   `json:"conflict"`
}

type config struct {
	out       string
	perSource int            // candidates per repository and source
	quota     map[string]int // scenarios per repository and category
	maxLines  int            // file size limit
	maxPatch  int            // patch size limit in lines
	exts      []string
	anchors   bool // chunks carry git's function-context line as their @@ anchor
}

func main() {
	var cfg config
	var exts string
	flag.StringVar(&cfg.out, "out", "", "directory to write the scenarios to (required)")
	flag.IntVar(&cfg.perSource, "n", 40, "scenarios per repository and source")
	flag.IntVar(&cfg.maxLines, "max-lines", 4000, "skip files with more lines")
	flag.IntVar(&cfg.maxPatch, "max-patch", 200, "skip patches with more lines")
	flag.BoolVar(&cfg.anchors, "anchors", false, "give each chunk git's function-context line as its @@ anchor")
	flag.StringVar(&exts, "ext", ".go,.py,.js,.ts,.rs", "file extensions to use")
	cfg.quota = map[string]int{}
	for _, c := range []struct {
		name string
		def  int
	}{{"stale", 70}, {"moved", 35}, {"conflict", 35}, {"control", 12}} {
		cfg.quota[c.name] = c.def
		flag.Func(c.name, fmt.Sprintf("scenarios per repository whose category is %s (default %d)", c.name, c.def), func(v string) error {
			_, err := fmt.Sscan(v, &c.def)
			cfg.quota[c.name] = c.def
			return err
		})
	}
	flag.Parse()
	cfg.exts = strings.Split(exts, ",")
	if cfg.out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: histcorpus -out DIR REPO.git [REPO.git ...]")
		os.Exit(2)
	}
	total := 0
	for _, repo := range flag.Args() {
		n, err := mine(cfg, repo)
		if err != nil {
			fmt.Fprintf(os.Stderr, "histcorpus: %s: %v\n", repo, err)
			os.Exit(1)
		}
		total += n
	}
	fmt.Printf("%d scenarios in %s\n", total, cfg.out)
}

// repoName turns /x/owner+name/repo into owner+name (or the base name).
func repoName(dir string) string {
	d := filepath.Clean(dir)
	if filepath.Base(d) == "repo" {
		d = filepath.Dir(d)
	}
	return filepath.Base(d)
}

type miner struct {
	cfg   config
	repo  string
	name  string
	count map[string]int
	seq   int
	tmp   string
	seen  map[string]bool
	cands []candidate
}

// candidate is a scenario found and not yet written; writeAll picks among them by category.
type candidate struct {
	meta                                         Meta
	base, ours, theirs, merged, next, text, diff string
	category                                     string
}

func mine(cfg config, repo string) (int, error) {
	tmp, err := os.MkdirTemp("", "histcorpus")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	m := &miner{cfg: cfg, repo: repo, name: repoName(repo), count: map[string]int{}, tmp: tmp, seen: map[string]bool{}}
	if err := m.merges(); err != nil {
		return m.seq, err
	}
	if err := m.linear(); err != nil {
		return m.seq, err
	}
	m.writeAll()
	return m.seq, nil
}

func (m *miner) git(args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", m.repo}, args...)...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out.String(), nil
}

func (m *miner) blob(commit, path string) (string, bool) {
	out, err := m.git("show", commit+":"+path)
	if err != nil {
		return "", false
	}
	return out, true
}

func (m *miner) wanted(path string) bool {
	for _, e := range m.cfg.exts {
		if strings.HasSuffix(path, e) {
			return true
		}
	}
	return false
}

func (m *miner) full(source string) bool { return m.count[source] >= m.cfg.perSource }

// merges mines merge commits.
func (m *miner) merges() error {
	out, err := m.git("rev-list", "--merges", "--parents", "HEAD")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		if m.full("merge") {
			break
		}
		mc, p1, p2 := f[0], f[1], f[2]
		bs, err := m.git("merge-base", "--all", p1, p2)
		if err != nil || len(strings.Fields(bs)) != 1 {
			continue
		}
		base := strings.TrimSpace(bs)
		c1, err1 := m.git("diff", "--name-only", base, p1)
		c2, err2 := m.git("diff", "--name-only", base, p2)
		if err1 != nil || err2 != nil {
			continue
		}
		both := map[string]bool{}
		for _, p := range strings.Fields(c1) {
			both[p] = true
		}
		var paths []string
		for _, p := range strings.Fields(c2) {
			if both[p] && m.wanted(p) {
				paths = append(paths, p)
			}
		}
		sort.Strings(paths)
		for _, p := range paths[:min(len(paths), 1)] {
			b, ok0 := m.blob(base, p)
			t1, ok1 := m.blob(p1, p)
			t2, ok2 := m.blob(p2, p)
			next, ok3 := m.blob(mc, p)
			if !ok0 || !ok1 || !ok2 || !ok3 {
				continue
			}
			m.emit(Meta{Source: "merge", Path: p, Base: base, Ours: p2, Theirs: p1, Next: mc}, b, t2, t1, next)
			m.emit(Meta{Source: "merge", Path: p, Base: base, Ours: p1, Theirs: p2, Next: mc}, b, t1, t2, next)
		}
	}
	return nil
}

// linear mines consecutive versions of files on the first-parent history.
func (m *miner) linear() error {
	out, err := m.git("ls-tree", "-r", "--name-only", "HEAD")
	if err != nil {
		return err
	}
	var paths []string
	for _, p := range strings.Split(strings.TrimSpace(out), "\n") {
		if m.wanted(p) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	// Visit files round-robin, a few triples each, so that many files contribute.
	type hist struct {
		path    string
		commits []string
		next    int
	}
	var hs []*hist
	for _, p := range paths {
		log, err := m.git("log", "--first-parent", "--format=%H", "--", p)
		if err != nil {
			continue
		}
		cs := strings.Fields(log)
		if len(cs) < 3 {
			continue
		}
		// oldest first
		for i, j := 0, len(cs)-1; i < j; i, j = i+1, j-1 {
			cs[i], cs[j] = cs[j], cs[i]
		}
		hs = append(hs, &hist{path: p, commits: cs, next: len(cs) - 1})
	}
	for round := 0; round < 12 && !(m.full("forward") && m.full("pick")); round++ {
		for _, h := range hs {
			if m.full("forward") && m.full("pick") {
				break
			}
			// newest triples first, stepping back two versions a round
			i := h.next
			h.next -= 2
			if i < 2 {
				continue
			}
			c0, c1, c2 := h.commits[i-2], h.commits[i-1], h.commits[i]
			v0, ok0 := m.blob(c0, h.path)
			v1, ok1 := m.blob(c1, h.path)
			v2, ok2 := m.blob(c2, h.path)
			if !ok0 || !ok1 || !ok2 || v0 == v1 || v1 == v2 {
				continue
			}
			if !m.full("forward") {
				// carry v1 → v2 back onto v0
				if back, clean, err := m.merge(v0, v1, v2); err == nil && clean && back != v0 {
					m.emit(Meta{Source: "forward", Path: h.path, Base: c0, Theirs: c1, Next: c2}, v0, back, v1, v2)
				}
			}
			if !m.full("pick") {
				m.emit(Meta{Source: "pick", Path: h.path, Base: c1, Ours: c2, Theirs: c0}, v1, v2, v0, "")
			}
		}
	}
	return nil
}

// merge runs git merge-file on current, base and other and returns the result and whether it
// was clean.
func (m *miner) merge(current, base, other string) (string, bool, error) {
	files := []string{"current", "base", "other"}
	for i, s := range []string{current, base, other} {
		if err := os.WriteFile(filepath.Join(m.tmp, files[i]), []byte(s), 0o644); err != nil {
			return "", false, err
		}
	}
	cmd := exec.Command("git", "merge-file", "-p", filepath.Join(m.tmp, "current"), filepath.Join(m.tmp, "base"), filepath.Join(m.tmp, "other"))
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), true, nil
	case errors.As(err, &ee) && ee.ExitCode() > 0 && ee.ExitCode() < 128:
		return out.String(), false, nil
	}
	return "", false, err
}

// diff returns the unified diff (3 lines of context) of a → b, hunks only.
func (m *miner) diff(a, b string) (string, error) {
	pa, pb := filepath.Join(m.tmp, "a"), filepath.Join(m.tmp, "b")
	if err := os.WriteFile(pa, []byte(a), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(pb, []byte(b), 0o644); err != nil {
		return "", err
	}
	cmd := exec.Command("git", "diff", "--no-index", "--no-color", "-U3", "--", pa, pb)
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		return "", err
	}
	s := out.String()
	i := strings.Index(s, "\n@@ ")
	if i < 0 {
		return "", errors.New("no hunk")
	}
	return s[i+1:], nil
}

// codexPatch converts unified-diff hunks into an apply_patch Update section with bare "@@"
// chunks, or with anchors git's function-context line when it names one (shorter than the 80
// bytes at which git cuts it). It fails on a "\ No newline" marker (the format cannot say it).
func codexPatch(path, hunks string, anchors bool) (string, error) {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Update File: " + path + "\n")
	for _, l := range strings.Split(strings.TrimSuffix(hunks, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			_, ctx, _ := strings.Cut(strings.TrimPrefix(l, "@@"), "@@ ")
			if anchors && strings.TrimSpace(ctx) != "" && len(ctx) < 79 {
				b.WriteString("@@ " + ctx + "\n")
				continue
			}
			b.WriteString("@@\n")
		case strings.HasPrefix(l, `\`):
			return "", errors.New("no final newline")
		case l == "":
			b.WriteString(" \n")
		default:
			b.WriteString(l + "\n")
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String(), nil
}

func lines(s string) int { return strings.Count(s, "\n") }

// emit writes one scenario (and, for one in eight, a control) unless filtered out.
func (m *miner) emit(meta Meta, base, ours, theirs, next string) {
	if base == ours || base == theirs || ours == theirs || lines(base) > m.cfg.maxLines || lines(theirs) > m.cfg.maxLines {
		return
	}
	if strings.Contains(base+ours+theirs, "\r") || strings.ContainsRune(base+ours+theirs, 0) {
		return
	}
	key := meta.Source + meta.Path + base + ours + theirs
	if m.seen[key] {
		return
	}
	m.seen[key] = true
	hunks, err := m.diff(base, ours)
	if err != nil || lines(hunks) > m.cfg.maxPatch {
		return
	}
	text, err := codexPatch(meta.Path, hunks, m.cfg.anchors)
	if err != nil {
		return
	}
	merged, clean, err := m.merge(theirs, base, ours)
	if err != nil {
		return
	}
	if clean && merged == theirs {
		return // the change is already in the file
	}
	meta.Repo, meta.Conflict = m.name, !clean
	m.count[meta.Source]++
	cat := "conflict"
	if clean {
		cat = category(hunks, theirs)
	}
	m.cands = append(m.cands, candidate{meta, base, ours, theirs, merged, next, text, hunks, cat})
	c := meta
	c.Source, c.Theirs, c.Conflict, c.Next = "control", c.Base, false, ""
	m.cands = append(m.cands, candidate{c, base, ours, base, ours, "", text, hunks, "control"})
}

// category is "moved" when every hunk's old lines are still one block in theirs (the other
// change only moved them), else "stale".
func category(hunks, theirs string) string {
	var block []string
	present := func() bool {
		ok := len(block) == 0 || strings.Contains("\n"+theirs, "\n"+strings.Join(block, "\n")+"\n")
		block = block[:0]
		return ok
	}
	for _, l := range strings.Split(hunks, "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			if !present() {
				return "stale"
			}
		case strings.HasPrefix(l, " "), strings.HasPrefix(l, "-"):
			block = append(block, l[1:])
		}
	}
	if !present() {
		return "stale"
	}
	return "moved"
}

// writeAll writes up to the quota of each category, spreading the picks evenly over the
// candidates found (which come newest first within each source).
func (m *miner) writeAll() {
	by := map[string][]candidate{}
	for _, c := range m.cands {
		by[c.category] = append(by[c.category], c)
	}
	for _, cat := range []string{"stale", "moved", "conflict", "control"} {
		cs, q := by[cat], m.cfg.quota[cat]
		for i := 0; i < min(q, len(cs)); i++ {
			c := cs[i*len(cs)/min(q, len(cs))]
			m.write(c.meta, c.base, c.ours, c.theirs, c.merged, c.next, c.text, c.diff)
		}
	}
}

func (m *miner) write(meta Meta, base, ours, theirs, merged, next, text, hunks string) {
	m.seq++
	dir := filepath.Join(m.cfg.out, fmt.Sprintf("%s-%04d", m.name, m.seq))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	js, _ := json.MarshalIndent(meta, "", "  ")
	files := map[string]string{
		"meta.json": string(js) + "\n",
		"base":      base,
		"ours":      ours,
		"theirs":    theirs,
		"patch.txt": text,
		"diff.txt":  "--- a/" + meta.Path + "\n+++ b/" + meta.Path + "\n" + hunks,
	}
	if !meta.Conflict {
		files["merged"] = merged
	}
	if next != "" {
		files["next"] = next
	}
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
