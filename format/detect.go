package format

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Env is everything detection reads. Detection takes nothing from the process (no global
// PATH lookup, no os.Stat), so tests use fstest.MapFS and a fake LookPath.
type Env struct {
	// Root is the worktree root, an absolute OS path. Walks up from a file stop here, and
	// formatters run with Root as their working directory.
	Root string
	// FS is rooted at Root (os.DirFS(Root) in production; nil means that).
	FS fs.FS
	// LookPath resolves a binary name (exec.LookPath when nil).
	LookPath func(string) (string, error)
	// Getenv reads an environment variable (os.Getenv when nil).
	Getenv func(string) string
	// Cache, when set, remembers walk-up results between detections. The host calls
	// [Cache.Invalidate] when it changes a file; nil means no cache.
	Cache *Cache
	// RunProbe runs a probe command and returns its combined output. Probes run only when
	// Config.Probes is true; with RunProbe nil they fail.
	RunProbe func(argv []string) ([]byte, error)
}

func (env Env) fsys() fs.FS {
	if env.FS != nil {
		return env.FS
	}
	return os.DirFS(env.Root)
}

func (env Env) lookPath(name string) (string, error) {
	if env.LookPath != nil {
		return env.LookPath(name)
	}
	return exec.LookPath(name)
}

func (env Env) getenv(name string) string {
	if env.Getenv != nil {
		return env.Getenv(name)
	}
	return os.Getenv(name)
}

// locate turns path (absolute, or relative to Root) into its slash path relative to Root
// and its absolute OS path. inside is false for a path outside Root. On Windows a path rooted
// without a drive letter (\x\a.go, /x/a.go) is read on the root's drive, and a path that
// names a drive without being absolute (C:a.go, relative to that drive's current
// directory) is outside, as is any relative path that leaves the root or is not a valid
// slash path once cleaned.
func (env Env) locate(p string) (rel, abs string, inside bool) {
	if !filepath.IsAbs(p) {
		r := filepath.Clean(p)
		switch {
		case filepath.VolumeName(r) != "":
			return "", r, false
		case r != "" && os.IsPathSeparator(r[0]):
			p = filepath.VolumeName(env.Root) + r
		default:
			// Clean keeps a leading ".\" on Windows where dropping it would leave a drive
			// (".\C:"); such a name is no file under the root.
			if rel := filepath.ToSlash(r); fs.ValidPath(rel) {
				return rel, filepath.Join(env.Root, r), true
			}
			return "", filepath.Join(env.Root, r), false
		}
	}
	abs = filepath.Clean(p)
	r, err := filepath.Rel(env.Root, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", abs, false
	}
	return filepath.ToSlash(r), abs, true
}

// Cache remembers which files exist and what they contain, per directory and name under the
// root, so a warm detection makes no stat call. It is safe for concurrent use. It does not
// watch the disk: the host calls Invalidate when a file changes (a write tool knows).
type Cache struct {
	mu sync.Mutex
	m  map[cacheKey]*cached
}

// cacheKey is a file as a directory (slash path under the root, "." for the root) and a name
// that may itself hold slashes (node_modules/.bin/prettier).
type cacheKey struct{ dir, name string }

type cached struct {
	exists bool
	read   bool
	data   []byte
	parsed bool
	deps   map[string]map[string]bool // manifest section → dependency names
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{m: map[cacheKey]*cached{}} }

// Invalidate forgets what the cache knows about name (a slash path relative to the root) and
// everything below it; "" or "." forgets everything.
func (c *Cache) Invalidate(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	name = path.Clean(name)
	if name == "." || name == "" {
		clear(c.m)
		return
	}
	for k := range c.m {
		if p := path.Join(k.dir, k.name); p == name || strings.HasPrefix(p, name+"/") {
			delete(c.m, k)
		}
	}
}

// Len returns the number of remembered files.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// probe is what one detection knows: the environment and the remembered file facts.
type probe struct {
	env  Env
	fsys fs.FS
}

// lock and unlock take and release the cache's lock, if there is a cache.
func (p *probe) lock() {
	if c := p.env.Cache; c != nil {
		c.mu.Lock()
	}
}

func (p *probe) unlock() {
	if c := p.env.Cache; c != nil {
		c.mu.Unlock()
	}
}

// entry returns the facts about dir/name, with the cache's lock held by the caller.
func (p *probe) entry(dir, name string) *cached {
	c := p.env.Cache
	k := cacheKey{dir, name}
	if c != nil {
		if e, ok := c.m[k]; ok {
			return e
		}
	}
	e := &cached{}
	if fi, err := fs.Stat(p.fsys, path.Join(dir, name)); err == nil && !fi.IsDir() {
		e.exists = true
	}
	if c != nil {
		if c.m == nil {
			c.m = map[cacheKey]*cached{}
		}
		c.m[k] = e
	}
	return e
}

func (p *probe) exists(dir, name string) bool {
	p.lock()
	defer p.unlock()
	return p.entry(dir, name).exists
}

// readLocked returns the content of an entry, reading it once.
func (p *probe) readLocked(dir, name string, e *cached) []byte {
	if !e.read {
		e.data, _ = fs.ReadFile(p.fsys, path.Join(dir, name))
		e.read = true
	}
	return e.data
}

func (p *probe) read(dir, name string) []byte {
	p.lock()
	defer p.unlock()
	e := p.entry(dir, name)
	if !e.exists {
		return nil
	}
	return p.readLocked(dir, name, e)
}

// hasDep reports whether the JSON manifest dir/name lists dep in one of sections.
func (p *probe) hasDep(dir, name, dep string, sections []string) bool {
	p.lock()
	defer p.unlock()
	e := p.entry(dir, name)
	if !e.exists {
		return false
	}
	if !e.parsed {
		e.parsed = true
		var m map[string]json.RawMessage
		if json.Unmarshal(p.readLocked(dir, name, e), &m) == nil {
			e.deps = map[string]map[string]bool{}
			for sec, raw := range m {
				var deps map[string]json.RawMessage
				if json.Unmarshal(raw, &deps) == nil {
					set := make(map[string]bool, len(deps))
					for d := range deps {
						set[d] = true
					}
					e.deps[sec] = set
				}
			}
		}
	}
	for _, s := range sections {
		if e.deps[s][dep] {
			return true
		}
	}
	return false
}

// dirsUp lists dir (a slash path relative to the root) and its parents up to the root ".",
// nearest first. It stops at a directory that is its own parent, so a rooted path cannot
// make it loop.
func dirsUp(dir string) []string {
	var out []string
	for {
		out = append(out, dir)
		up := path.Dir(dir)
		if dir == "." || dir == "" || up == dir {
			return out
		}
		dir = up
	}
}

// findUp returns the nearest directory, walking up from dir, holding one of names.
func (p *probe) findUp(dirs []string, names []string) (dir, name string, ok bool) {
	for _, d := range dirs {
		for _, n := range names {
			if p.exists(d, n) {
				return d, n, true
			}
		}
	}
	return "", "", false
}

// Plan is one formatter chosen for a file, ready to run.
type Plan struct {
	Def  *Def     // the formatter, with overrides applied
	Argv []string // the command for the file itself (placeholders expanded); nil in process
	Dir  string   // working directory: the root
	Why  string   // the evidence, e.g. "found biome.json at web/"
	Env  []string // KEY=VALUE pairs added to the inherited environment

	root, edition, bin string
}

// argv expands the formatter's arguments for file (the file or its temporary copy).
func (pl Plan) argv(file string) []string {
	if pl.Def.InProcess != "" {
		return nil
	}
	out := make([]string, len(pl.Def.Args))
	for i, a := range pl.Def.Args {
		a = strings.ReplaceAll(a, "$FILE", file)
		a = strings.ReplaceAll(a, "{file}", file)
		a = strings.ReplaceAll(a, "{dir}", filepath.Dir(file))
		a = strings.ReplaceAll(a, "{root}", pl.root)
		a = strings.ReplaceAll(a, "{edition}", pl.edition)
		out[i] = a
	}
	if len(out) > 0 && pl.bin != "" {
		out[0] = pl.bin
	}
	return out
}

// Skip is a formatter that will not run on a file, and why.
type Skip struct {
	Name   string
	Reason string
}

// State is one formatter's status for a project: whether it would apply, and why.
type State struct {
	Name       string
	Extensions []string
	Enabled    bool
	Reason     string
}

// Strengths of evidence; a stronger one wins a conflict.
const (
	strengthNone = iota
	strengthBinary
	strengthManifest
	strengthConfig
	strengthUser
)

var strengthNames = [...]string{"nothing", "a binary on PATH", "a manifest entry", "a project configuration file", "a user-configured command"}

// evidenceStrength is how strong one alternative is when it holds.
func evidenceStrength(e Evidence) int {
	switch {
	case len(e.ConfigFiles) > 0:
		return strengthConfig
	case len(e.FileContains) > 0, e.NPMDep != "", e.ComposerDep != "":
		return strengthManifest
	default:
		return strengthBinary
	}
}

// candidate is one matching formatter after its detection.
type candidate struct {
	plan     Plan
	strength int
	optedIn  bool
}

// matchDefs returns the formatters for base (a lower-cased file name): those listing its
// longest listed suffix, else those naming it in Filenames. suffix is the matched suffix.
func matchDefs(defs []Def, base string) (idx []int, suffix string) {
	for i := 0; i < len(base); i++ {
		if base[i] != '.' {
			continue
		}
		s := base[i:]
		for j, d := range defs {
			if slices.ContainsFunc(d.Extensions, func(e string) bool { return strings.ToLower(e) == s }) {
				idx = append(idx, j)
			}
		}
		if len(idx) > 0 {
			return idx, s
		}
	}
	for j, d := range defs {
		if slices.ContainsFunc(d.Filenames, func(f string) bool { return strings.ToLower(f) == base }) {
			idx = append(idx, j)
		}
	}
	return idx, base
}

// Detect chooses the formatters for path (absolute, or relative to env.Root): at most one,
// unless the configuration chains several for the file's suffix. It also returns every
// matching formatter that will not run, with the reason. It reads files through env.FS only
// and starts no process unless cfg.Probes is set.
func Detect(env Env, cfg Config, reg []Def, file string) (plans []Plan, skipped []Skip) {
	defs, forced := effective(cfg, reg)
	return detect(env, cfg, defs, forced, file)
}

// detect is Detect over a registry with the overrides already applied.
func detect(env Env, cfg Config, defs []Def, forced map[string]bool, file string) (plans []Plan, skipped []Skip) {
	rel, abs, inside := env.locate(file)
	base := strings.ToLower(filepath.Base(abs))
	idx, suffix := matchDefs(defs, base)
	if len(idx) == 0 {
		return nil, nil
	}
	chain, chained := chainFor(cfg, suffix)
	p := &probe{env: env, fsys: env.fsys()}
	var dirs []string
	if inside {
		dirs = dirsUp(path.Dir(rel))
	}
	relDir := "./"
	switch {
	case !inside:
		relDir = filepath.Dir(abs) + " (outside the root, so nothing is looked up)"
	case path.Dir(rel) != ".":
		relDir = path.Dir(rel) + "/"
	}
	var cands []candidate
	for _, i := range idx {
		d := &defs[i]
		_, overridden := cfg.Overrides[d.Name]
		inChain := slices.Contains(chain, d.Name)
		switch {
		case cfg.Enabled != nil && !*cfg.Enabled:
			skipped = append(skipped, Skip{d.Name, "disabled by configuration (formatting is off)"})
			continue
		case overridden && cfg.Overrides[d.Name].Disabled:
			skipped = append(skipped, Skip{d.Name, "disabled by configuration"})
			continue
		case chained && !inChain:
			skipped = append(skipped, Skip{d.Name, fmt.Sprintf("not in the configured chain for %s", suffix)})
			continue
		}
		c, reason := detectOne(p, env, cfg, d, forced[d.Name], dirs, relDir, abs)
		if reason != "" {
			skipped = append(skipped, Skip{d.Name, reason})
			continue
		}
		c.optedIn = overridden || inChain || (cfg.Enabled != nil && *cfg.Enabled)
		if c.strength < strengthManifest && !c.optedIn {
			skipped = append(skipped, Skip{d.Name, fmt.Sprintf("needs opt-in: only %s was found (%s); set enabled to true or add an override for %s", strengthNames[c.strength], c.plan.Why, d.Name)})
			continue
		}
		cands = append(cands, c)
	}
	if len(cands) == 0 {
		return nil, skipped
	}
	if chained {
		slices.SortStableFunc(cands, func(a, b candidate) int {
			return slices.Index(chain, a.plan.Def.Name) - slices.Index(chain, b.plan.Def.Name)
		})
		for _, c := range cands {
			plans = append(plans, c.plan)
		}
		return plans, skipped
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		if a.strength != b.strength {
			return b.strength - a.strength
		}
		if a.plan.Def.Priority != b.plan.Def.Priority {
			return b.plan.Def.Priority - a.plan.Def.Priority
		}
		return strings.Compare(a.plan.Def.Name, b.plan.Def.Name)
	})
	win := cands[0]
	for _, c := range cands[1:] {
		why := "same evidence strength, lower priority"
		if c.strength < win.strength {
			why = fmt.Sprintf("%s beats %s", strengthNames[win.strength], strengthNames[c.strength])
		} else if c.plan.Def.Priority == win.plan.Def.Priority {
			why = "same evidence and priority, name order"
		}
		skipped = append(skipped, Skip{c.plan.Def.Name, fmt.Sprintf("%s formats this file instead, one formatter per file (%s)", win.plan.Def.Name, why)})
	}
	return []Plan{win.plan}, skipped
}

func chainFor(cfg Config, suffix string) ([]string, bool) {
	for k, v := range cfg.Chain {
		if strings.ToLower(k) == suffix {
			return v, true
		}
	}
	return nil, false
}

// detectOne runs d's detection. It returns the candidate, or a non-empty reason when no
// evidence holds.
func detectOne(p *probe, env Env, cfg Config, d *Def, forced bool, dirs []string, relDir, abs string) (candidate, string) {
	plan := Plan{Def: d, Dir: env.Root, root: env.Root, edition: "2021"}
	for _, k := range slices.Sorted(mapsKeys(d.Env)) {
		plan.Env = append(plan.Env, k+"="+d.Env[k])
	}
	if slices.Contains(d.Args, "{edition}") || slices.ContainsFunc(d.Args, func(a string) bool { return strings.Contains(a, "{edition}") }) {
		if dir, _, ok := p.findUp(dirs, []string{"Cargo.toml"}); ok {
			if ed := cargoEdition(p.read(dir, "Cargo.toml")); ed != "" {
				plan.edition = ed
			}
		}
	}
	finish := func(strength int, why string) (candidate, string) {
		plan.Why = why
		plan.Argv = plan.argv(abs)
		return candidate{plan: plan, strength: strength}, ""
	}
	switch {
	case forced:
		if len(d.Args) > 0 {
			if bin, err := env.lookPath(d.Args[0]); err == nil && !strings.Contains(d.Args[0], "{") {
				plan.bin = bin
			}
		}
		return finish(strengthUser, "configured command (detection off)")
	case d.InProcess != "":
		return finish(strengthConfig, "in process ("+d.InProcess+")")
	case len(d.Evidence) == 0:
		return finish(strengthBinary, "no detection needed")
	}
	alts := slices.Clone(d.Evidence)
	slices.SortStableFunc(alts, func(a, b Evidence) int { return evidenceStrength(b) - evidenceStrength(a) })
	var reasons []string
	for _, e := range alts {
		why, bin, reason := checkEvidence(p, env, cfg, d, e, dirs, relDir)
		if reason != "" {
			if !slices.Contains(reasons, reason) {
				reasons = append(reasons, reason)
			}
			continue
		}
		plan.bin = bin
		return finish(evidenceStrength(e), why)
	}
	return candidate{}, strings.Join(reasons, "; ")
}

// checkEvidence tests one alternative: the cheap file facts first, the binary, then a probe.
func checkEvidence(p *probe, env Env, cfg Config, d *Def, e Evidence, dirs []string, relDir string) (why, bin, reason string) {
	var whys []string
	if e.EnvVar != "" && env.getenv(e.EnvVar) == "" {
		return "", "", fmt.Sprintf("%s is not set", e.EnvVar)
	}
	if len(e.ConfigFiles) > 0 {
		dir, name, ok := p.findUp(dirs, e.ConfigFiles)
		if !ok {
			names := e.ConfigFiles[0]
			switch n := len(e.ConfigFiles); {
			case n == 2:
				names += " or " + e.ConfigFiles[1]
			case n > 2:
				names += fmt.Sprintf(" (or %d other names)", n-1)
			}
			return "", "", fmt.Sprintf("no %s above %s", names, relDir)
		}
		whys = append(whys, fmt.Sprintf("found %s at %s", name, dirSlash(dir)))
	}
	for _, fc := range e.FileContains {
		found := false
		for _, dir := range dirs {
			if !p.exists(dir, fc.File) {
				continue
			}
			if fc.Substr == "" || strings.Contains(string(p.read(dir, fc.File)), fc.Substr) {
				if fc.Substr == "" {
					whys = append(whys, fmt.Sprintf("found %s at %s", fc.File, dirSlash(dir)))
				} else {
					whys = append(whys, fmt.Sprintf("%s at %s mentions %s", fc.File, dirSlash(dir), fc.Substr))
				}
				found = true
				break
			}
		}
		if !found {
			if fc.Substr == "" {
				return "", "", fmt.Sprintf("no %s above %s", fc.File, relDir)
			}
			return "", "", fmt.Sprintf("no %s above %s mentions %s", fc.File, relDir, fc.Substr)
		}
	}
	if e.NPMDep != "" {
		dir, ok := findManifestDep(p, dirs, "package.json", e.NPMDep, "dependencies", "devDependencies")
		if !ok {
			return "", "", fmt.Sprintf("no package.json above %s lists %s", relDir, e.NPMDep)
		}
		whys = append(whys, fmt.Sprintf("package.json at %s lists %s", dirSlash(dir), e.NPMDep))
	}
	if e.ComposerDep != "" {
		dir, ok := findManifestDep(p, dirs, "composer.json", e.ComposerDep, "require", "require-dev")
		if !ok {
			return "", "", fmt.Sprintf("no composer.json above %s lists %s", relDir, e.ComposerDep)
		}
		whys = append(whys, fmt.Sprintf("composer.json at %s lists %s", dirSlash(dir), e.ComposerDep))
	}
	if e.Binary != "" {
		found := false
		if e.NodeModules {
			if dir, _, ok := p.findUp(dirs, []string{"node_modules/.bin/" + e.Binary}); ok {
				bin = filepath.Join(env.Root, filepath.FromSlash(path.Join(dir, "node_modules/.bin", e.Binary)))
				whys = append(whys, fmt.Sprintf("%s in node_modules/.bin at %s", e.Binary, dirSlash(dir)))
				found = true
			}
		}
		if !found {
			b, err := env.lookPath(e.Binary)
			if err != nil {
				return "", "", fmt.Sprintf("%s is not on PATH", e.Binary)
			}
			bin = b
			whys = append(whys, e.Binary+" on PATH")
		}
	}
	if e.Probe != nil {
		if !cfg.Probes || env.RunProbe == nil {
			return "", "", fmt.Sprintf("needs a probe (%s), and probes are off", strings.Join(e.Probe.Args, " "))
		}
		argv := slices.Clone(e.Probe.Args)
		if bin != "" && len(argv) > 0 && argv[0] == e.Binary {
			argv[0] = bin
		}
		out, err := env.RunProbe(argv)
		if err != nil || !strings.Contains(string(out), e.Probe.Want) {
			return "", "", fmt.Sprintf("probe %q did not confirm %s", strings.Join(e.Probe.Args, " "), d.Name)
		}
		whys = append(whys, "probe "+strings.Join(e.Probe.Args, " ")+" passed")
	}
	return strings.Join(whys, ", "), bin, ""
}

func dirSlash(dir string) string {
	if dir == "." {
		return "./"
	}
	return dir + "/"
}

// findManifestDep looks for a manifest walking up whose sections list dep.
func findManifestDep(p *probe, dirs []string, manifest, dep string, sections ...string) (string, bool) {
	for _, dir := range dirs {
		if p.hasDep(dir, manifest, dep, sections) {
			return dir, true
		}
	}
	return "", false
}

// cargoEdition reads `edition = "2021"` from a Cargo.toml's text, "" when absent.
func cargoEdition(data []byte) string {
	for line := range strings.Lines(string(data)) {
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != "edition" {
			continue
		}
		v = strings.TrimSpace(v)
		if i := strings.IndexAny(v, "#"); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		v = strings.Trim(v, `"'`)
		if v != "" && strings.Trim(v, "0123456789") == "" {
			return v
		}
	}
	return ""
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Status lists every formatter of the registry (with the configuration applied) and
// whether it would apply to a file at the root, with the reason, like OpenCode's status but
// with reasons. Walks start at the root, so a configuration file in a subdirectory is not
// seen; use [Detect] for a given file.
func Status(env Env, cfg Config, reg []Def) []State {
	defs, forced := effective(cfg, reg)
	out := make([]State, 0, len(defs))
	for _, d := range defs {
		st := State{Name: d.Name, Extensions: d.Extensions}
		probeName := "_status_"
		if len(d.Extensions) > 0 {
			probeName += d.Extensions[0]
		} else if len(d.Filenames) > 0 {
			probeName = d.Filenames[0]
		}
		c := cfg
		c.Chain = nil
		plans, skipped := detect(env, c, []Def{d}, forced, probeName)
		switch {
		case len(plans) == 1:
			st.Enabled, st.Reason = true, plans[0].Why
		case len(skipped) > 0:
			st.Reason = skipped[0].Reason
		default:
			st.Reason = "matches no file"
		}
		out = append(out, st)
	}
	return out
}
