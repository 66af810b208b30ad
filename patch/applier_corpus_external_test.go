package patch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/patch"
)

// The real-history corpus (patch/internal/histcorpus writes it; it holds other projects' code
// and is never committed): a patch written against one revision of a file, applied to another
// revision that a different commit made from the same base, judged against git's 3-way merge.
var histCorpus = flag.String("patch.histcorpus", "", "directory of history scenarios written by patch/internal/histcorpus; runs TestHistoryCorpus on it")

// corpusScenario is one scenario directory.
type corpusScenario struct {
	name                 string
	meta                 corpusMeta
	theirs, merged, next string
	text, diff           string
}

type corpusMeta struct {
	Repo     string `json:"repo"`
	Source   string `json:"source"`
	Path     string `json:"path"`
	Conflict bool   `json:"conflict"`
}

func loadScenarios(t *testing.T, dir string) []corpusScenario {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusScenario
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		d := filepath.Join(dir, e.Name())
		read := func(name string, must bool) string {
			b, err := os.ReadFile(filepath.Join(d, name))
			if err != nil && (must || !errors.Is(err, os.ErrNotExist)) {
				t.Fatal(err)
			}
			return string(b)
		}
		sc := corpusScenario{name: e.Name(), theirs: read("theirs", true), next: read("next", false),
			text: read("patch.txt", true), diff: read("diff.txt", true)}
		if err := json.Unmarshal([]byte(read("meta.json", true)), &sc.meta); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if !sc.meta.Conflict {
			sc.merged = read("merged", true)
		}
		out = append(out, sc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// corpusOutcome is how one applier did on one scenario.
type corpusOutcome uint8

const (
	outCorrect  corpusOutcome = iota + 1 // clean merge, the merge's result written
	outMissed                            // clean merge, nothing written
	outWrong                             // clean merge, something else written
	outRefused                           // conflict, nothing written
	outConflict                          // conflict, something written
)

func (o corpusOutcome) String() string {
	return [...]string{"", "correct", "missed", "WRONG", "refused", "writes-on-conflict"}[o]
}

// judge classifies the file an applier left (after == theirs when it wrote nothing).
func (sc corpusScenario) judge(after string) corpusOutcome {
	wrote := after != sc.theirs
	switch {
	case sc.meta.Conflict && wrote:
		return outConflict
	case sc.meta.Conflict:
		return outRefused
	case after == sc.merged:
		return outCorrect
	case !wrote:
		return outMissed
	}
	return outWrong
}

// category is the classification of a scenario: control (the patch's own base),
// conflict, moved (every chunk's old lines are still in the file as one block) or stale.
func (sc corpusScenario) category() string {
	switch {
	case sc.meta.Source == "control":
		return "control"
	case sc.meta.Conflict:
		return "conflict"
	}
	var block []string
	flush := func() bool {
		ok := len(block) == 0 || strings.Contains("\n"+sc.theirs, "\n"+strings.Join(block, "\n")+"\n")
		block = block[:0]
		return ok
	}
	for _, l := range strings.Split(sc.diff, "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			if !flush() {
				return "stale"
			}
		case strings.HasPrefix(l, " "), strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---"):
			block = append(block, l[1:])
		}
	}
	if !flush() {
		return "stale"
	}
	return "moved"
}

// corpusApplier applies a scenario's patch and returns the file afterwards.
type corpusApplier struct {
	name  string
	apply func(t *testing.T, sc corpusScenario) string
}

func harnesskitApplier(name string, opts ...patch.Option) corpusApplier {
	return corpusApplier{name: name, apply: func(t *testing.T, sc corpusScenario) string {
		m := apTree(t, map[string]string{sc.meta.Path: sc.theirs})
		a, err := patch.New(m, apRoot, opts...)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = a.Apply(context.Background(), sc.text)
		return apFiles(m)[sc.meta.Path]
	}}
}

// processApplier runs a command in a temporary directory holding the file, with input on
// stdin.
func processApplier(name string, argv []string, input func(corpusScenario) string) corpusApplier {
	return corpusApplier{name: name, apply: func(t *testing.T, sc corpusScenario) string {
		dir := t.TempDir()
		p := filepath.Join(dir, filepath.FromSlash(sc.meta.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(sc.theirs), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(input(sc))
		cmd.Env = append(os.Environ(), "HOME="+dir+"/.home-unused")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return "" // the applier deleted the file: a write
		}
		return string(b)
	}}
}

// corpusAppliers returns harnesskit's two modes and, when installed, the Codex applier and
// GNU patch (fuzz 2, no backups or reject files); notes says which were left out and why.
func corpusAppliers(t *testing.T) (as []corpusApplier, notes []string) {
	as = append(as, harnesskitApplier("harnesskit"), harnesskitApplier("harnesskit --codex-compat", patch.WithCodexCompat()))
	if bin := os.Getenv("HARNESSKIT_CODEX_APPLY_PATCH"); bin != "" {
		abs, err := filepath.Abs(bin)
		if err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(t.TempDir(), "apply_patch")
		if err := os.Symlink(abs, link); err != nil {
			t.Fatal(err)
		}
		as = append(as, processApplier("Codex 0.171.0", []string{link}, func(sc corpusScenario) string { return sc.text }))
	} else {
		notes = append(notes, "Codex left out: HARNESSKIT_CODEX_APPLY_PATCH is not set ("+strings.ReplaceAll(oracleInstall, "\n", " ")+")")
	}
	if gnu, err := exec.LookPath("patch"); err == nil {
		as = append(as, processApplier("GNU patch -F2", []string{gnu, "-p1", "-F2", "-f", "-s", "--no-backup-if-mismatch", "-r", "-"},
			func(sc corpusScenario) string { return sc.diff }))
	} else {
		notes = append(notes, "GNU patch left out: not on PATH (Debian: apt-get install patch)")
	}
	return as, notes
}

// corpusTally counts outcomes per applier (and per category for the default mode).
type corpusTally struct {
	counts     map[corpusOutcome]int
	byCategory map[string]map[corpusOutcome]int
	byRepo     map[string]map[corpusOutcome]int
	asHistory  int // writes on a conflict equal to what the history did next
}

func runCorpus(t *testing.T, scs []corpusScenario) (map[string]*corpusTally, []corpusApplier) {
	as, notes := corpusAppliers(t)
	for _, n := range notes {
		t.Log(n)
	}
	tally := map[string]*corpusTally{}
	for _, a := range as {
		tally[a.name] = &corpusTally{counts: map[corpusOutcome]int{}, byCategory: map[string]map[corpusOutcome]int{},
			byRepo: map[string]map[corpusOutcome]int{}}
	}
	for _, sc := range scs {
		cat := sc.category()
		for _, a := range as {
			after := a.apply(t, sc)
			o := sc.judge(after)
			tl := tally[a.name]
			tl.counts[o]++
			if tl.byCategory[cat] == nil {
				tl.byCategory[cat] = map[corpusOutcome]int{}
			}
			tl.byCategory[cat][o]++
			if tl.byRepo[sc.meta.Repo] == nil {
				tl.byRepo[sc.meta.Repo] = map[corpusOutcome]int{}
			}
			tl.byRepo[sc.meta.Repo][o]++
			if o == outConflict && sc.next != "" && after == sc.next {
				tl.asHistory++
			}
			if testing.Verbose() || (o == outWrong && a.name == "harnesskit") {
				hist := ""
				if o == outConflict && sc.next != "" {
					hist = " (history's next: different)"
					if after == sc.next {
						hist = " (= history's next)"
					}
				}
				t.Logf("%s [%s %s] %s: %s%s", sc.name, sc.meta.Source, cat, a.name, o, hist)
			}
		}
	}
	return tally, as
}

func corpusTable(tally map[string]*corpusTally, as []corpusApplier, scs []corpusScenario) string {
	clean := 0
	for _, sc := range scs {
		if !sc.meta.Conflict {
			clean++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d scenarios, %d clean merges, %d conflicts\n", len(scs), clean, len(scs)-clean)
	b.WriteString("| applier | correct | missed | WRONG | refused on a conflict | writes on a conflict (= history's next) | correct / clean |\n|---|---|---|---|---|---|---|\n")
	for _, a := range as {
		c := tally[a.name].counts
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d (%d) | %.1f %% |\n", a.name, c[outCorrect], c[outMissed], c[outWrong],
			c[outRefused], c[outConflict], tally[a.name].asHistory, 100*float64(c[outCorrect])/float64(max(clean, 1)))
	}
	repos := map[string]bool{}
	for _, sc := range scs {
		repos[sc.meta.Repo] = true
	}
	if len(repos) > 1 {
		names := make([]string, 0, len(repos))
		for r := range repos {
			names = append(names, r)
		}
		sort.Strings(names)
		b.WriteString("\nper repository (clean merges: correct / missed / WRONG; conflicts: refused / writes):\n")
		b.WriteString("| repository | applier | correct | missed | WRONG | refused on a conflict | writes on a conflict | correct / clean |\n|---|---|---|---|---|---|---|---|\n")
		for _, r := range names {
			for _, a := range as {
				c := tally[a.name].byRepo[r]
				rc := c[outCorrect] + c[outMissed] + c[outWrong]
				fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %.1f %% |\n", r, a.name, c[outCorrect], c[outMissed], c[outWrong],
					c[outRefused], c[outConflict], 100*float64(c[outCorrect])/float64(max(rc, 1)))
			}
		}
	}
	b.WriteString("\nharnesskit default by category:\n")
	byCat := tally["harnesskit"].byCategory
	cats := make([]string, 0, len(byCat))
	for c := range byCat {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	for _, c := range cats {
		fmt.Fprintf(&b, "  %-9s", c)
		for o := outCorrect; o <= outConflict; o++ {
			if n := byCat[c][o]; n > 0 {
				fmt.Fprintf(&b, " %s %d", o, n)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestHistoryCorpus runs the real-history corpus through every applier and prints the table
// of correct, missed and wrong results; the default mode must never write a wrong result.
// Without -patch.histcorpus it runs the small synthetic sample in testdata/histcorpus, whose
// expected outcomes are fixed.
func TestHistoryCorpus(t *testing.T) {
	dir := *histCorpus
	if dir == "" {
		dir = filepath.Join("testdata", "histcorpus")
	}
	scs := loadScenarios(t, dir)
	tally, as := runCorpus(t, scs)
	t.Log("\n" + corpusTable(tally, as, scs))
	if n := tally["harnesskit"].counts[outWrong]; n > 0 {
		t.Errorf("the default mode wrote %d wrong results", n)
	}
	if *histCorpus == "" {
		// The sample's outcomes for harnesskit's two modes are pinned (go test -update
		// rewrites them; the external appliers are left out, they may be absent).
		var b strings.Builder
		for _, sc := range scs {
			for _, a := range as[:2] {
				fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", sc.name, sc.category(), a.name, sc.judge(a.apply(t, sc)))
			}
		}
		golden := filepath.Join(dir, "outcomes.golden")
		if *update {
			if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if b.String() != string(want) {
			t.Errorf("outcomes differ from %s (go test -update rewrites it):\n got:\n%s\nwant:\n%s", golden, b.String(), want)
		}
	}
}
