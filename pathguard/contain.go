package pathguard

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
)

// MaxSymlinks is how many symbolic links one real-path walk follows before it gives up
// with [KindResolve], as Linux does (ELOOP after 40).
const MaxSymlinks = 40

// Containment decides whether paths are inside a root directory or one of its worktrees,
// both lexically and after symlinks are resolved. Build it with [NewContainment]; it is
// immutable afterwards and safe for concurrent use. The real paths of the bases are
// computed once, on the first check.
type Containment struct {
	flavor   volumeSplitter
	resolver Resolver
	fold     bool
	root     string
	bases    []string // normalised; bases[0] is the root

	once      sync.Once
	realBases []string
	baseErr   error
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
// equal to the root are ignored. Default: none. Repeated options accumulate.
func WithWorktrees(dirs ...string) ContainOption {
	return func(c *containConfig) { c.worktrees = append(c.worktrees, dirs...) }
}

// WithResolver sets the file-system seam used for the symlink walk. Default:
// [OSResolver]. With the Windows flavour on a non-Windows machine, pass a fake.
func WithResolver(r Resolver) ContainOption {
	return func(c *containConfig) { c.resolver = r }
}

// WithCaseFold compares path segments without regard to case (strings.EqualFold).
// Default: on for GOOS windows and darwin, off elsewhere. The Windows flavour always
// folds, whatever this says.
func WithCaseFold(on bool) ContainOption {
	return func(c *containConfig) { c.fold = &on }
}

// WithPathFlavor sets the path rules used to resolve and compare paths. Default:
// [Native]. Only the flavours of this package ([POSIX], [Windows], [Native]) are
// accepted.
func WithPathFlavor(f Flavor) ContainOption {
	return func(c *containConfig) { c.flavor = f }
}

// NewContainment returns a Containment over root and the worktrees of [WithWorktrees].
// root must be absolute under the flavour and contain no NUL byte; the error is an
// *[Error] of [KindResolve] otherwise. It does no I/O: a root missing on disk makes every
// later Check fail with KindResolve.
func NewContainment(root string, opts ...ContainOption) (*Containment, error) {
	cfg := containConfig{}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.flavor == nil {
		cfg.flavor = Native()
	}
	vs, ok := cfg.flavor.(volumeSplitter)
	if !ok {
		return nil, &Error{Kind: KindResolve, Path: root, Err: fmt.Errorf("unsupported path flavour %q: use POSIX, Windows or Native", cfg.flavor.Name())}
	}
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
	c := &Containment{flavor: vs, resolver: cfg.resolver, fold: fold}
	c.root = vs.Resolve(root)
	c.bases = []string{c.root}
	for _, w := range cfg.worktrees {
		if err := checkBase(vs, w); err != nil {
			return nil, &Error{Kind: KindResolve, Path: w, Err: fmt.Errorf("worktree: %w", err)}
		}
		n := vs.Resolve(w)
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
	return c, nil
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
func isVolumeRoot(f volumeSplitter, p string) bool {
	_, rest, abs := f.splitVolume(p)
	if !abs {
		return false
	}
	s, _ := nextSegment(rest, 0, f.isSep)
	return s == ""
}

func equalPath(f volumeSplitter, a, b string, fold bool) bool {
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
	Real     string // Abs with every existing symlink resolved and the missing tail appended
	Base     string // the base (root or worktree) that contains Abs
	RealBase string // the real path of the base that contains Real
	Rel      string // Abs relative to the root, '/'-separated ("." for the root itself)
	InRoot   bool   // Abs is within the root and Real within the root's real path
}

// Check resolves target and decides whether it is inside. A relative target is taken
// against the root; an absolute one is normalised (with the Windows flavour, a rooted
// "\x" takes the root's drive). Allowed means both: Abs is within some base, and Real is
// within some base's real path.
//
// Errors (*[Error]): [KindOutside] when the target escapes; [KindResolve] when the target
// is empty or contains a NUL byte, when a base cannot be resolved or does not exist, when
// the walk meets more than [MaxSymlinks] links, or when Lstat/Readlink fail other than
// with not-exist or not-a-directory (fail closed). The returned Target is filled as far as
// the walk got, also on error.
func (c *Containment) Check(target string) (Target, error) {
	t := Target{Raw: target}
	if target == "" {
		return t, &Error{Kind: KindResolve, Path: target, Err: errors.New("empty path: name a file under the workspace root")}
	}
	if strings.IndexByte(target, 0) >= 0 {
		return t, &Error{Kind: KindResolve, Path: target, Err: errors.New("path contains a NUL byte")}
	}
	f := c.flavor
	t.Abs = f.Resolve(c.root, target)
	if rel, ok := relNormalized(f, c.root, t.Abs, c.fold); ok {
		t.Rel = strings.ReplaceAll(rel, string(f.Sep()), "/")
	}
	realBases, err := c.bases0()
	if err != nil {
		return t, &Error{Kind: KindResolve, Path: target, Err: err}
	}
	real, _, err := realpath(f, c.resolver, t.Abs)
	if err != nil {
		return t, &Error{Kind: KindResolve, Path: target, Err: err}
	}
	t.Real = real
	lex, rl := -1, -1
	for i, b := range c.bases {
		if withinNormalized(f, b, t.Abs, c.fold) {
			if lex < 0 {
				lex = i
			}
			if withinNormalized(f, realBases[i], real, c.fold) {
				lex, rl = i, i
				break
			}
		}
	}
	if rl < 0 {
		for i, rb := range realBases {
			if withinNormalized(f, rb, real, c.fold) {
				rl = i
				break
			}
		}
	}
	if lex < 0 || rl < 0 {
		return t, &Error{Kind: KindOutside, Path: target, Resolved: real}
	}
	t.Base, t.RealBase = c.bases[lex], realBases[rl]
	t.InRoot = withinNormalized(f, c.root, t.Abs, c.fold) && withinNormalized(f, realBases[0], real, c.fold)
	return t, nil
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

// bases0 computes the real paths of the bases once.
func (c *Containment) bases0() ([]string, error) {
	c.once.Do(func() {
		rb := make([]string, len(c.bases))
		for i, b := range c.bases {
			real, missing, err := realpath(c.flavor, c.resolver, b)
			if err != nil {
				c.baseErr = fmt.Errorf("base %s: %w", b, err)
				return
			}
			if missing {
				c.baseErr = fmt.Errorf("workspace base %s does not exist (real path %s); create it or configure an existing root or worktree: %w", b, real, fs.ErrNotExist)
				return
			}
			rb[i] = real
		}
		c.realBases = rb
	})
	return c.realBases, c.baseErr
}

// realpath resolves every symlink in the normalised absolute path abs, like `realpath -m`:
// a missing component, or one under a non-directory, and everything after it are kept
// literally (".." from link targets still removes the previous component). missing
// reports whether the final path does not exist.
func realpath(f volumeSplitter, r Resolver, abs string) (real string, missing bool, err error) {
	vol, rest, ok := f.splitVolume(abs)
	if !ok {
		return "", false, fmt.Errorf("%q is not absolute", abs)
	}
	sep := f.Sep()
	resolved := vol
	pending := rest // components still to walk, separated by either separator
	links := 0
	// unknown counts the trailing components of resolved that do not exist; while it is
	// positive, no Lstat is needed.
	unknown := 0
	// onAbs reports that resolved is still a prefix of abs and pending the rest of it
	// (no link followed yet), so the next prefix can be sliced from abs instead of built.
	onAbs := true
	for {
		var seg string
		seg, pending = cutSegment(pending, f.isSep)
		if seg == "" {
			if pending == "" {
				break
			}
			continue
		}
		switch seg {
		case ".":
			onAbs = false
			continue
		case "..":
			onAbs = false
			if i := strings.LastIndexByte(resolved[len(vol):], sep); i >= 0 {
				resolved = resolved[:len(vol)+i]
			} else {
				resolved = vol
			}
			if unknown > 0 {
				unknown--
			}
			continue
		}
		var next string
		switch {
		case onAbs:
			next = abs[:len(abs)-len(pending)]
		case resolved == vol:
			next = resolved + seg
		default:
			next = resolved + string(sep) + seg
		}
		if unknown > 0 {
			resolved = next
			unknown++
			continue
		}
		fi, lerr := r.Lstat(next)
		if lerr != nil {
			if errors.Is(lerr, fs.ErrNotExist) || errors.Is(lerr, syscall.ENOTDIR) {
				resolved = next
				unknown = 1
				continue
			}
			return next, false, lerr
		}
		mode := fi.Mode()
		if mode&fs.ModeSymlink == 0 {
			if mode&fs.ModeIrregular != 0 && runtime.GOOS == "windows" {
				if _, isOS := r.(osResolver); isOS {
					// A reparse point that is neither a directory nor a symlink (a
					// junction, an app-exec link): let Windows resolve it.
					ev, everr := filepath.EvalSymlinks(next)
					if everr != nil {
						return next, false, everr
					}
					next = f.Resolve(ev)
					onAbs = false
				}
			}
			resolved = next
			continue
		}
		onAbs = false
		links++
		if links > MaxSymlinks {
			return next, false, fmt.Errorf("more than %d symbolic links (a loop?) at %s: %w", MaxSymlinks, next, syscall.ELOOP)
		}
		dest, rerr := r.Readlink(next)
		if rerr != nil {
			return next, false, rerr
		}
		if strings.IndexByte(dest, 0) >= 0 || dest == "" {
			return next, false, fmt.Errorf("symbolic link %s has an unusable target %q", next, dest)
		}
		dvol, drest, dabs := f.splitVolume(dest)
		switch {
		case dabs && (dvol == `\` || dvol == "/"):
			// Rooted without a device: stays on the current volume.
			resolved = vol
		case dabs:
			vol = dvol
			resolved = vol
		case dvol != "":
			// Drive-relative link target ("C:x"): take it from that drive's root.
			vol = dvol + `\`
			resolved = vol
		}
		if pending == "" {
			pending = drest
		} else {
			pending = drest + string(sep) + pending
		}
	}
	return resolved, unknown > 0, nil
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
