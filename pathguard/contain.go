package pathguard

import (
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"syscall"
)

// MaxSymlinks is how many symbolic links one real-path walk follows before it gives up
// with [KindResolve], as Linux does (ELOOP after 40).
const MaxSymlinks = 40

// The input limits of [Containment.Check]: a longer target, or one with more components,
// is refused with [KindResolve] ("path too long") before any file-system call. They match
// Linux's PATH_MAX and keep one check's cost bounded.
const (
	MaxPathBytes      = 4096
	MaxPathComponents = 1024
)

// Containment decides whether paths are inside a root directory or one of its worktrees,
// both lexically and where the kernel would open them. Build it with [NewContainment]; it
// is immutable afterwards and safe for concurrent use. The real path of a base is computed
// when a check first needs it and kept once it succeeds; a base that cannot be resolved is
// tried again by the next check.
type Containment struct {
	flavor   Flavor
	resolver Resolver
	speller  SpellingResolver // resolver, when it can report on-disk spellings; else nil
	fold     bool
	root     string
	bases    []string // normalised; bases[0] is the root

	mu        sync.Mutex
	realBases []string // "" until computed
}

// A ContainOption configures [NewContainment].
type ContainOption func(*containConfig)

type containConfig struct {
	worktrees []string
	resolver  Resolver
	fold      *bool
	flavor    Flavor
}

// GoString makes the configuration readable in test failures.
func (c *containConfig) GoString() string {
	fold := "default"
	if c.fold != nil {
		fold = fmt.Sprint(*c.fold)
	}
	name := "native"
	if c.flavor != nil {
		name = c.flavor.Name()
	}
	return fmt.Sprintf("containConfig{worktrees: %q, fold: %s, flavor: %s, resolver: %T}", c.worktrees, fold, name, c.resolver)
}

// WithWorktrees adds worktree directories as further bases. Each must be absolute under the
// flavour; a file-system root ("/", "C:\", "\\server\share\"), a duplicate and a worktree
// equal to the root are ignored, and one that turns out to be a symlink to a file-system
// root fails the checks that need it. Default: none. Repeated options accumulate.
func WithWorktrees(dirs ...string) ContainOption {
	return func(c *containConfig) { c.worktrees = append(c.worktrees, dirs...) }
}

// WithResolver sets the file-system seam used for the symlink walk. Default:
// [OSResolver]. With the Windows flavour on a non-Windows machine, pass a fake.
func WithResolver(r Resolver) ContainOption {
	return func(c *containConfig) { c.resolver = r }
}

// WithCaseFold declares the file system case-insensitive, so that a target spelled with
// other case than a base can still be inside it. Folding never widens containment: names
// fold by simple upper-casing (the Kelvin sign is not "k", the long s is not "s"), and a
// name that differs from the base's only in case matches it, lexically and in the real
// path, only when the resolver reports the on-disk spelling of the base's name for it
// ([SpellingResolver]; [OSResolver] does); otherwise comparisons are byte for byte. A
// missing component keeps the spelling given. Without a SpellingResolver such a
// component is outside. Default: on for GOOS windows and darwin, off elsewhere. The Windows flavour
// always folds, whatever this says.
func WithCaseFold(on bool) ContainOption {
	return func(c *containConfig) { c.fold = &on }
}

// WithPathFlavor sets the path rules used to resolve and compare paths. Default:
// [Native].
func WithPathFlavor(f Flavor) ContainOption {
	return func(c *containConfig) { c.flavor = f }
}

// NewContainment returns a Containment over root and the worktrees of [WithWorktrees].
// root must be absolute under the flavour and contain no NUL byte; the error is an
// *[Error] of [KindResolve] otherwise. It does no I/O: a root missing on disk makes the
// checks that need it fail with KindResolve until it exists.
func NewContainment(root string, opts ...ContainOption) (*Containment, error) {
	cfg := containConfig{}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.flavor == nil {
		cfg.flavor = Native()
	}
	vs := cfg.flavor
	if cfg.resolver == nil {
		cfg.resolver = OSResolver()
	}
	fold := runtime.GOOS == "windows" || runtime.GOOS == "darwin"
	if cfg.fold != nil {
		fold = *cfg.fold
	}
	if vs.Name() == "windows" {
		fold = true
	}
	if err := checkBase(vs, root); err != nil {
		return nil, &Error{Kind: KindResolve, Path: root, Err: fmt.Errorf("workspace root: %w", err)}
	}
	root = canonical(vs, root)
	c := &Containment{flavor: vs, resolver: cfg.resolver, fold: fold}
	if sp, ok := cfg.resolver.(SpellingResolver); ok && fold {
		c.speller = sp
	}
	c.root = vs.Resolve(root)
	c.bases = []string{c.root}
	for _, w := range cfg.worktrees {
		if err := checkBase(vs, w); err != nil {
			return nil, &Error{Kind: KindResolve, Path: w, Err: fmt.Errorf("worktree: %w", err)}
		}
		n := vs.Resolve(canonical(vs, w))
		if isVolumeRoot(vs, n) {
			continue
		}
		dup := false
		for _, b := range c.bases {
			if equalPath(vs, b, n, fold) {
				dup = true
				break
			}
		}
		if !dup {
			c.bases = append(c.bases, n)
		}
	}
	c.realBases = make([]string, len(c.bases))
	return c, nil
}

// canonical returns p with the Windows flavour's device-namespace prefixes of a drive or
// share path removed (see dosPath); other paths and the POSIX flavour are unchanged.
func canonical(f Flavor, p string) string {
	if f.Name() != "windows" {
		return p
	}
	p, _ = dosPath(p)
	return p
}

func checkBase(f Flavor, p string) error {
	switch {
	case strings.IndexByte(p, 0) >= 0:
		return errors.New("contains a NUL byte")
	case !f.IsAbs(p):
		return fmt.Errorf("%q is not an absolute path", p)
	}
	return nil
}

// isVolumeRoot reports whether the normalised absolute path p is a file-system root.
func isVolumeRoot(f Flavor, p string) bool {
	_, rest, abs := f.splitVolume(p)
	if !abs {
		return false
	}
	s, _ := nextSegment(rest, 0, f.isSep)
	return s == ""
}

func equalPath(f Flavor, a, b string, fold bool) bool {
	return withinNormalized(f, a, b, fold) && withinNormalized(f, b, a, fold)
}

// Root returns the normalised root.
func (c *Containment) Root() string { return c.root }

// Bases returns the normalised root followed by the distinct worktrees kept.
func (c *Containment) Bases() []string { return append([]string(nil), c.bases...) }

// Target is the verdict on one path.
type Target struct {
	Raw      string // the path as given
	Abs      string // normalised absolute path (relative paths are taken against the root)
	Real     string // where the kernel opens Raw: every existing symlink resolved, the missing tail appended
	Base     string // the base (root or worktree) that contains Abs
	RealBase string // the real path of the base that contains Real
	Rel      string // Abs relative to the root, '/'-separated ("." for the root itself)
	InRoot   bool   // Abs is within the root and Real within the root's real path
}

// Check resolves target and decides whether it is inside. A relative target is taken
// against the root; an absolute one as it is (with the Windows flavour, a rooted "\x"
// takes the root's drive). Allowed means both: Abs, the lexically normalised path, is
// within some base, and Real is within some base's real path. Real is computed the way
// the kernel opens a path: components left to right, each symlink followed where it is met,
// and a ".." applied to the resolved prefix — "link/../x" is judged where "link" leads,
// not as "x".
//
// Errors (*[Error]): [KindOutside] when the target escapes; [KindResolve] when the target
// is empty, contains a NUL byte, is longer than [MaxPathBytes] or has more than
// [MaxPathComponents] components ("path too long"), is a Windows name the kernel rewrites
// (see the package documentation), when the base it needs cannot be resolved or does not
// exist (the error names that base), when the walk meets more than [MaxSymlinks] links,
// or when Lstat/Readlink fail other than with not-exist or not-a-directory (fail closed).
// The returned Target is filled as far as the check got, also on error.
func (c *Containment) Check(target string) (Target, error) {
	t := Target{Raw: target}
	if err := c.checkInput(target); err != nil {
		return t, &Error{Kind: KindResolve, Path: target, Err: err}
	}
	f := c.flavor
	p := canonical(f, target)
	t.Abs = f.Resolve(c.root, p)
	if rel, ok := c.lexRel(t.Abs); ok {
		t.Rel = rel
	}
	real, _, err := c.realpath(c.physical(p))
	if err != nil {
		return t, &Error{Kind: KindResolve, Path: target, Err: err}
	}
	t.Real = real
	lex := -1
	var unavailable error
	for i, b := range c.bases {
		if !c.lexWithin(b, t.Abs) {
			continue
		}
		if lex < 0 {
			lex = i
		}
		rb, err := c.realBase(i)
		if err != nil {
			if unavailable == nil {
				unavailable = err
			}
			continue
		}
		if r, ok := c.physWithin(rb, real); ok {
			t.Base, t.RealBase, t.Real = b, rb, r
			break
		}
	}
	if lex < 0 {
		return t, &Error{Kind: KindOutside, Path: target, Resolved: real, Err: c.shortNameHint(target)}
	}
	if t.Base == "" {
		// Lexically inside, but not physically inside the same base: any base's real
		// path will do.
		for i := range c.bases {
			rb, err := c.realBase(i)
			if err != nil {
				continue
			}
			if r, ok := c.physWithin(rb, real); ok {
				t.Base, t.RealBase, t.Real = c.bases[lex], rb, r
				break
			}
		}
	}
	if t.Base == "" {
		if unavailable != nil {
			return t, &Error{Kind: KindResolve, Path: target, Resolved: real, Err: unavailable}
		}
		return t, &Error{Kind: KindOutside, Path: target, Resolved: real, Err: c.shortNameHint(target)}
	}
	if c.lexWithin(c.root, t.Abs) {
		if rb, err := c.realBase(0); err == nil {
			_, t.InRoot = c.physWithin(rb, t.Real)
		}
	}
	return t, nil
}

// shortNameHint explains an escape that may only be a matter of spelling: with the Windows
// flavour, when a component of target or of a base looks like an 8.3 short name
// ("PROGRA~1"), it returns why the long and short spellings of one directory count as
// different paths; otherwise nil.
func (c *Containment) shortNameHint(target string) error {
	if c.flavor.Name() != "windows" {
		return nil
	}
	for _, p := range append([]string{target}, c.bases...) {
		_, rest, _ := c.flavor.splitVolume(canonical(c.flavor, p))
		for i := 0; ; {
			var seg string
			if seg, i = nextSegment(rest, i, c.flavor.isSep); seg == "" {
				break
			}
			if isShortName(seg) {
				return fmt.Errorf("%q looks like a Windows 8.3 short name, and containment compares names as they are spelled, so a short and a long spelling of one directory are different paths (the safe answer); spell the path with the same long names as the workspace root %s", seg, c.root)
			}
		}
	}
	return nil
}

// isShortName reports whether seg has the shape of a generated 8.3 name: a stem of at most
// eight characters ending in '~' and digits, and an extension of at most three.
func isShortName(seg string) bool {
	stem, ext, _ := strings.Cut(seg, ".")
	i := strings.LastIndexByte(stem, '~')
	if i <= 0 || i == len(stem)-1 || len(stem) > 8 || len(ext) > 3 {
		return false
	}
	for _, d := range stem[i+1:] {
		if d < '0' || d > '9' {
			return false
		}
	}
	return true
}

// lexPrefix compares the normalised base with the normalised path p segment by segment.
// It returns the offsets in the rests of base and p (after their volumes) just past the
// leading segments that match, and ok false when either path is relative or their volumes
// differ. Two segments match when their bytes are equal or, with folding on, when they
// fold equal and the file system stores them as one entry (the same on-disk spelling in
// the directory reached so far): folding never joins two names the volume keeps apart,
// and without a [SpellingResolver] names that differ in case do not match.
func (c *Containment) lexPrefix(base, p string) (brest, prest string, i, j int, ok bool) {
	f := c.flavor
	bv, brest, babs := f.splitVolume(base)
	pv, prest, pabs := f.splitVolume(p)
	if !babs || !pabs || !equalVolume(bv, pv) {
		return "", "", 0, 0, false
	}
	dir := bv
	for {
		bs, ni := nextSegment(brest, i, f.isSep)
		ps, nj := nextSegment(prest, j, f.isSep)
		if bs == "" || ps == "" || !c.sameName(dir, bs, ps) {
			return brest, prest, i, j, true
		}
		i, j = ni, nj
		dir = base[:len(base)-len(brest)+i]
	}
}

// sameName reports whether the base's segment bs and the target's segment ps, both in
// directory dir, name the same entry (see lexPrefix).
func (c *Containment) sameName(dir, bs, ps string) bool {
	if bs == ps {
		return true
	}
	if !c.fold || c.speller == nil || !foldEqual(bs, ps) {
		return false
	}
	a, err := c.speller.Spelling(dir, ps)
	if err != nil {
		return false
	}
	b, err := c.speller.Spelling(dir, bs)
	return err == nil && a == b
}

// lexWithin reports whether the normalised path p lies within the normalised base,
// comparing segments as lexPrefix does.
func (c *Containment) lexWithin(base, p string) bool {
	brest, _, i, _, ok := c.lexPrefix(base, p)
	if !ok {
		return false
	}
	s, _ := nextSegment(brest, i, c.flavor.isSep)
	return s == ""
}

// lexRel returns the normalised path p relative to the root with '/' separators, comparing
// segments as lexPrefix does; ok is false when p is on another volume.
func (c *Containment) lexRel(p string) (string, bool) {
	brest, prest, i, j, ok := c.lexPrefix(c.root, p)
	if !ok {
		return "", false
	}
	var parts []string
	for k := i; ; {
		var s string
		if s, k = nextSegment(brest, k, c.flavor.isSep); s == "" {
			break
		}
		parts = append(parts, "..")
	}
	for k := j; ; {
		var s string
		if s, k = nextSegment(prest, k, c.flavor.isSep); s == "" {
			break
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ".", true
	}
	return strings.Join(parts, "/"), true
}

// checkInput refuses targets that are not worth resolving: empty, with a NUL byte, too
// long, or (Windows flavour) a name the kernel rewrites.
func (c *Containment) checkInput(target string) error {
	switch {
	case target == "":
		return errors.New("empty path: name a file under the workspace root")
	case strings.IndexByte(target, 0) >= 0:
		return errors.New("path contains a NUL byte")
	case len(target) > MaxPathBytes:
		return fmt.Errorf("path too long: %d bytes, at most %d are accepted; name the file by a shorter path", len(target), MaxPathBytes)
	}
	p, verbatim := target, false
	if c.flavor.Name() == "windows" {
		p, verbatim = dosPath(target)
	}
	vol, rest, abs := c.flavor.splitVolume(p)
	if !abs && vol != "" {
		return fmt.Errorf("the path %q starts with a drive and no separator: Windows takes it relative to that drive's current directory (and in a name, ':' starts an alternate data stream); give a path relative to the workspace root, or an absolute one", target)
	}
	n := 0
	for i := 0; ; {
		var seg string
		seg, i = nextSegment(rest, i, c.flavor.isSep)
		if seg == "" {
			break
		}
		if n++; n > MaxPathComponents {
			return fmt.Errorf("path too long: more than %d components; name the file by a shorter path", MaxPathComponents)
		}
		if c.flavor.Name() == "windows" {
			if verbatim && (seg == "." || seg == "..") {
				return fmt.Errorf("the path %q starts with %s, under which Windows looks %q up as a name instead of applying it; give the path without %[2]s or without %[3]q", target, `\\?\`, seg)
			}
			if err := windowsNameError(seg); err != nil {
				return err
			}
		}
	}
	return nil
}

// windowsNameError reports a path segment that Windows would open under another name: a
// trailing dot or space (stripped), a DOS device name (opened as the device), or a colon
// (an alternate data stream).
func windowsNameError(seg string) error {
	if seg == "." || seg == ".." {
		return nil
	}
	if last := seg[len(seg)-1]; last == '.' || last == ' ' {
		return fmt.Errorf("the name %q ends with a dot or a space, which Windows strips, so another file would be opened; remove the trailing dot or space", seg)
	}
	if strings.IndexByte(seg, ':') >= 0 {
		return fmt.Errorf("the name %q contains ':', which Windows reads as an alternate data stream (name:stream); choose a name without ':'", seg)
	}
	stem, _, _ := strings.Cut(seg, ".")
	stem = strings.TrimRight(stem, " ")
	if isDOSDevice(stem) {
		return fmt.Errorf("the name %q is the DOS device %s, which Windows opens instead of a file in any directory; choose another name", seg, strings.ToUpper(stem))
	}
	return nil
}

func isDOSDevice(stem string) bool {
	u := strings.ToUpper(stem)
	switch u {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(u) == 4 && (strings.HasPrefix(u, "COM") || strings.HasPrefix(u, "LPT")) && '0' <= u[3] && u[3] <= '9' {
		return true
	}
	if strings.HasPrefix(u, "COM") || strings.HasPrefix(u, "LPT") {
		switch u[3:] {
		case "¹", "²", "³":
			return true
		}
	}
	return false
}

// physical returns the path the kernel would be asked to open for target, without any
// lexical normalisation: a relative target is appended to the root, and a Windows rooted
// target ("\x") takes the root's volume. (Drive-relative Windows targets, "C:x", were
// refused by checkInput.)
func (c *Containment) physical(target string) string {
	f := c.flavor
	vol, rest, abs := f.splitVolume(target)
	switch {
	case abs && f.Name() == "windows" && vol == `\`:
		rootVol, _, _ := f.splitVolume(c.root)
		return rootVol + rest
	case abs:
		return target
	}
	sep := string(f.Sep())
	return strings.TrimSuffix(c.root, sep) + sep + target
}

// CheckAll checks every target and returns all results, in order. If any target is
// refused, the error is one *[Error] naming every offending target in Paths (and the
// first in its message); resolution failures ([KindResolve]) come before escapes
// ([KindOutside]), and the error's Kind is that of the first listed.
func (c *Containment) CheckAll(targets ...string) ([]Target, error) {
	out := make([]Target, len(targets))
	var resolveErrs, outsideErrs []*Error
	for i, t := range targets {
		var err error
		out[i], err = c.Check(t)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				pe = &Error{Kind: KindResolve, Path: t, Err: err}
			}
			if pe.Kind == KindResolve {
				resolveErrs = append(resolveErrs, pe)
			} else {
				outsideErrs = append(outsideErrs, pe)
			}
		}
	}
	all := append(resolveErrs, outsideErrs...)
	if len(all) == 0 {
		return out, nil
	}
	first := *all[0]
	first.Paths = make([]string, len(all))
	for i, e := range all {
		first.Paths[i] = e.Path
	}
	return out, &first
}

// realBase returns the real path of base i, computing it if no earlier check has. A
// failure is not kept: the next check tries again. A base whose real path is a
// file-system root, though it is not one itself (a symlink to "/"), is a failure.
func (c *Containment) realBase(i int) (string, error) {
	c.mu.Lock()
	rb := c.realBases[i]
	c.mu.Unlock()
	if rb != "" {
		return rb, nil
	}
	b := c.bases[i]
	real, missing, err := c.realpath(b)
	if err != nil {
		return "", fmt.Errorf("workspace base %s cannot be resolved: %w", b, err)
	}
	if missing {
		return "", fmt.Errorf("workspace base %s does not exist (real path %s); create it or configure an existing root or worktree: %w", b, real, fs.ErrNotExist)
	}
	if isVolumeRoot(c.flavor, real) && !isVolumeRoot(c.flavor, b) {
		// A symlink to "/" would make the base contain every path, which is why a
		// file-system root is never taken as a worktree.
		return "", fmt.Errorf("workspace base %s is a link to the file-system root %s, which would contain every path; configure the directory itself", b, real)
	}
	if c.speller != nil {
		if real, err = c.spell(real); err != nil {
			return "", fmt.Errorf("workspace base %s: reading its on-disk spelling: %w", b, err)
		}
	}
	c.mu.Lock()
	c.realBases[i] = real
	c.mu.Unlock()
	return real, nil
}

// spell rewrites every component of the existing real path p with its on-disk spelling.
func (c *Containment) spell(p string) (string, error) {
	f := c.flavor
	vol, rest, _ := f.splitVolume(p)
	out := vol
	for i := 0; ; {
		var seg string
		seg, i = nextSegment(rest, i, f.isSep)
		if seg == "" {
			return out, nil
		}
		sp, err := c.speller.Spelling(out, seg)
		if err != nil {
			return "", err
		}
		out = joinSeg(out, vol, f.Sep(), sp)
	}
}

func joinSeg(dir, vol string, sep byte, seg string) string {
	if dir == vol {
		return dir + seg
	}
	return dir + string(sep) + seg
}

// physWithin reports whether the real path p lies within the real base rb, comparing
// components byte for byte. With folding on, a component of p that differs from rb's only
// in case is replaced by its on-disk spelling (when the resolver reports it) before the
// comparison, so a case-insensitive volume can match while a second directory whose name
// differs in case cannot. When inside, it returns p with rb's spelling for the base part.
func (c *Containment) physWithin(rb, p string) (string, bool) {
	f := c.flavor
	bv, brest, _ := f.splitVolume(rb)
	pv, prest, pabs := f.splitVolume(p)
	if !pabs || !equalVolume(bv, pv) {
		return "", false
	}
	dir := bv
	i, j := 0, 0
	respelled := false
	for {
		var bs, ps string
		bs, i = nextSegment(brest, i, f.isSep)
		if bs == "" {
			break
		}
		ps, j = nextSegment(prest, j, f.isSep)
		if ps == "" {
			return "", false
		}
		if ps != bs {
			if !c.fold || c.speller == nil || !foldEqual(ps, bs) {
				return "", false
			}
			sp, err := c.speller.Spelling(dir, ps)
			if err != nil || sp != bs {
				return "", false
			}
			respelled = true
		}
		dir = joinSeg(dir, bv, f.Sep(), bs)
	}
	if bv != pv {
		respelled = true
	}
	if !respelled {
		return p, true
	}
	for j < len(prest) && f.isSep(prest[j]) {
		j++
	}
	tail := prest[j:]
	if tail == "" {
		return rb, true
	}
	return joinSeg(rb, bv, f.Sep(), tail), true
}

// realpath resolves every symlink in the absolute path abs the way the kernel does:
// components are taken left to right, a symlink is replaced by its target where it is met,
// and ".." removes the last component of the resolved prefix (after any link before it
// was followed). A missing component, or one under a non-directory, and everything after
// it are kept literally (".." still removes the previous one, as `realpath -m` does).
// missing reports whether the final path does not exist. The cost is linear in the length
// of abs plus the link targets followed, plus one copy of the resolved prefix per turn (a
// link or a ".."): the resolved prefix is one buffer, link targets are pushed as frames
// instead of being concatenated with the rest, and a turn copies only the prefix and the
// names up to the next turn, never the pending frames.
func (c *Containment) realpath(abs string) (real string, missing bool, err error) {
	f, r := c.flavor, c.resolver
	vol, rest, ok := f.splitVolume(abs)
	if !ok {
		return "", false, fmt.Errorf("%q is not absolute", abs)
	}
	sep := f.Sep()
	buf := make([]byte, 0, len(abs)+8)
	buf = append(buf, vol...)
	starts := make([]int, 0, 16) // where each resolved component begins in buf (at its separator)
	frames := []string{rest}
	links := 0
	// The names handed to Lstat are prefixes of cur, so that a walk that does not turn
	// (no link, no "..") allocates no name per component: synced reports that buf equals
	// cur[:len(buf)]. When the walk turns, cur is rebuilt from buf and the straight run
	// that follows in the current frame: its names up to the next ".." (which turns the
	// walk again) or the frame's end. Stopping there keeps every rebuild proportional to
	// the lookup it serves plus bytes read for the first time; copying all pending link
	// targets on each turn made stacked links quadratic.
	cur, synced := abs, strings.HasPrefix(abs, vol)
	rebuild := func() {
		run := frames[len(frames)-1]
		end := 0
		for k := 0; ; {
			var s string
			if s, k = nextSegment(run, k, f.isSep); s == "" || s == ".." {
				break
			}
			end = k
		}
		var b strings.Builder
		b.Grow(len(buf) + 1 + end)
		b.Write(buf)
		for k := 0; k < end; {
			var s string
			if s, k = nextSegment(run, k, f.isSep); s != "." && s != "" {
				b.WriteByte(sep)
				b.WriteString(s)
			}
		}
		cur, synced = b.String(), true
	}
	// unknown counts the trailing components of buf that do not exist; while it is
	// positive, no Lstat is needed.
	unknown := 0
	for len(frames) > 0 {
		top := len(frames) - 1
		seg, after := cutSegment(frames[top], f.isSep)
		frames[top] = after
		if seg == "" {
			if after == "" {
				frames = frames[:top]
			}
			continue
		}
		switch seg {
		case ".":
			continue
		case "..":
			if n := len(starts); n > 0 {
				buf = buf[:starts[n-1]]
				starts = starts[:n-1]
			}
			if unknown > 0 {
				unknown--
			}
			continue
		}
		start := len(buf)
		starts = append(starts, start)
		if len(buf) > len(vol) {
			buf = append(buf, sep)
		}
		buf = append(buf, seg...)
		if synced && (len(cur) < len(buf) || cur[start:len(buf)] != string(buf[start:])) {
			synced = false
		}
		if unknown > 0 {
			unknown++
			continue
		}
		if !synced {
			rebuild()
		}
		next := cur[:len(buf)]
		fi, lerr := r.Lstat(next)
		if lerr != nil {
			if errors.Is(lerr, fs.ErrNotExist) || errors.Is(lerr, syscall.ENOTDIR) {
				unknown = 1
				continue
			}
			return next, false, lerr
		}
		mode := fi.Mode()
		var dest string
		switch {
		case mode&fs.ModeSymlink != 0:
			if links++; links > MaxSymlinks {
				return next, false, fmt.Errorf("more than %d symbolic links (a loop?) at %s: %w", MaxSymlinks, next, syscall.ELOOP)
			}
			var rerr error
			if dest, rerr = r.Readlink(next); rerr != nil {
				return next, false, rerr
			}
		case mode&fs.ModeIrregular != 0:
			// A reparse point that is not reported as a symlink. A junction (a mount
			// point) redirects like a link and Readlink returns its target; since Go
			// 1.23, filepath.EvalSymlinks no longer follows it. Other kinds (a
			// cloud-file placeholder, an app-exec link) open in place, and Readlink
			// says so with not-exist or EINVAL.
			var rerr error
			dest, rerr = r.Readlink(next)
			if rerr != nil {
				if errors.Is(rerr, fs.ErrNotExist) || errors.Is(rerr, syscall.EINVAL) {
					continue
				}
				return next, false, fmt.Errorf("reparse point %s: %w", next, rerr)
			}
			if links++; links > MaxSymlinks {
				return next, false, fmt.Errorf("more than %d symbolic links or junctions (a loop?) at %s: %w", MaxSymlinks, next, syscall.ELOOP)
			}
		default:
			continue
		}
		if strings.IndexByte(dest, 0) >= 0 || dest == "" {
			return next, false, fmt.Errorf("symbolic link %s has an unusable target %q", next, dest)
		}
		dest = canonical(f, dest)
		// The link itself is replaced by its target.
		buf = buf[:starts[len(starts)-1]]
		starts = starts[:len(starts)-1]
		dvol, drest, dabs := f.splitVolume(dest)
		switch {
		case dabs && (dvol == `\` || dvol == "/"):
			// Rooted without a device: stays on the current volume.
			buf, starts = buf[:len(vol)], starts[:0]
		case dabs:
			vol = dvol
			buf, starts, synced = append(buf[:0], vol...), starts[:0], false
		case dvol != "":
			// Drive-relative link target ("C:x"): taken from that drive's root.
			vol = dvol + `\`
			buf, starts, synced = append(buf[:0], vol...), starts[:0], false
		}
		frames = append(frames, drest)
	}
	return string(buf), unknown > 0, nil
}

// cutSegment returns the first segment of p (possibly "" when p starts with separators)
// and what follows it.
func cutSegment(p string, isSep func(byte) bool) (seg, rest string) {
	i := 0
	for i < len(p) && isSep(p[i]) {
		i++
	}
	j := i
	for j < len(p) && !isSep(p[j]) {
		j++
	}
	return p[i:j], p[j:]
}
