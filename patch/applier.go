package patch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/harnesskit/harnesskit/pathguard"
	"github.com/harnesskit/harnesskit/wfs"
)

// Applier applies patches to one file system under one root (plus optional worktrees). Its
// configuration is immutable; its methods are safe for concurrent use, and its commits are
// serialised by a mutex. Create one with [Open] (a directory on disk) or [New] (any FS).
//
// Life cycle: New → Plan (or PlanPatch) → Commit, or Apply = Plan + Commit; Rewrite plans and
// returns canonical text for a host's own applier instead of writing.
type Applier struct {
	fsys wfs.FS
	root string // absolute, cleaned
	base string // directory relative patch paths resolve against
	cfg  config
	ct   *pathguard.Containment
	mu   *sync.Mutex // shared with appliers derived by In: one tree, one commit at a time
	fam  *family
	own  io.Closer // the file system Open made, closed by Close
	// recovered lists the interrupted commits Open finished or undid.
	recovered []wfs.Recovery
}

// Open returns an Applier over the real directory root: it resolves root and the worktrees
// given with [WithWorktrees] to absolute paths without symbolic links (nor, on Windows,
// junctions), opens a [wfs.OSFS] over them and builds the Applier with [New]. Then it recovers
// the tree: a commit that a crash interrupted (of this package or any other harnesskit writer
// on the tree) is finished or undone, and [Applier.Recovered] says which. Close the Applier
// when done (it closes the OSFS).
//
// Open fails when root (or a worktree) does not exist or is not a directory, when an option
// is invalid, or when an interrupted commit's journal cannot be read or recovered.
func Open(root string, opts ...Option) (*Applier, error) {
	real := func(what, p string) (string, error) {
		abs, err := filepath.Abs(p)
		if err == nil {
			abs, err = realDir(abs)
		}
		if err != nil {
			return "", fmt.Errorf("patch: Open: %s %q: %w", what, p, err)
		}
		return abs, nil
	}
	r, err := real("root", root)
	if err != nil {
		return nil, err
	}
	cfg := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	bases := []string{r}
	for _, w := range cfg.worktrees {
		rw, err := real("worktree", w)
		if err != nil {
			return nil, err
		}
		bases = append(bases, rw)
	}
	fsys, err := wfs.NewOSFS(bases...)
	if err != nil {
		return nil, fmt.Errorf("patch: Open: %w", err)
	}
	resolved := func(c *config) { c.worktrees = bases[1:] }
	a, err := New(fsys, r, append(slices.Clone(opts), resolved)...)
	if err != nil {
		fsys.Close()
		return nil, err
	}
	a.own = fsys
	rec, err := wfs.Recover(context.Background(), fsys, r)
	a.recovered = rec
	if err != nil {
		fsys.Close()
		return nil, fmt.Errorf("patch: Open: recovering an interrupted commit: %w", err)
	}
	return a, nil
}

// Recovered returns the interrupted commits [Open] finished or undid before it returned (see
// [wfs.Recover]); a host shows them to its user (the harnesskit CLI prints each on stderr).
// Commits finish or undo a dead writer's journal too, and report it in Result.Recovered.
func (a *Applier) Recovered() []wfs.Recovery { return slices.Clone(a.recovered) }

// realDir returns where the kernel opens the absolute directory abs, resolved as the
// containment resolves targets: every symbolic link and, on Windows, every junction
// followed (filepath.EvalSymlinks no longer follows junctions, so a root below one would
// differ from the real paths its targets resolve to). It fails when abs does not exist.
func realDir(abs string) (string, error) {
	ct, err := pathguard.NewContainment(abs)
	if err != nil {
		return "", err
	}
	t, err := ct.Check(abs)
	if err != nil {
		return "", err
	}
	return t.RealBase, nil
}

// Close releases the file system [Open] opened; for an Applier made by [New] (whose file
// system belongs to the caller) it does nothing. Appliers derived with In share the file
// system: close only the one Open returned.
func (a *Applier) Close() error {
	if a.own == nil {
		return nil
	}
	return a.own.Close()
}

// New returns an Applier over fsys whose root is the absolute directory root (use [Open] for
// a real directory: it builds the file system too). The options choose worktrees, the
// outside-path policy, Codex compatibility and the rescue bounds; without [WithContainment]
// the containment is built from root, the worktrees and a resolver over fsys (its Lstat and
// Readlink).
//
// New returns an error when fsys is nil, root is not absolute, root is not an existing
// directory of fsys (one Stat), an option is out of range, or the containment cannot be
// built. It starts no goroutines.
func New(fsys wfs.FS, root string, opts ...Option) (*Applier, error) {
	if fsys == nil {
		return nil, errors.New("patch: New: nil FS")
	}
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("patch: New: root %q is not an absolute path", root)
	}
	root = filepath.Clean(root)
	if info, err := fsys.Stat(root); err != nil {
		return nil, fmt.Errorf("patch: New: root %s: %w", root, err)
	} else if !info.IsDir() {
		return nil, fmt.Errorf("patch: New: root %s is not a directory", root)
	}
	cfg := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	ct := cfg.containment
	if ct == nil {
		var err error
		ct, err = pathguard.NewContainment(root,
			pathguard.WithWorktrees(cfg.worktrees...), pathguard.WithResolver(resolverFor(fsys)))
		if err != nil {
			return nil, fmt.Errorf("patch: New: %w", err)
		}
	}
	return &Applier{fsys: fsys, root: root, base: root, cfg: cfg, ct: ct, mu: &sync.Mutex{}, fam: &family{}}, nil
}

// resolverFor picks the containment's resolver: the operating system's for a [*wfs.OSFS]
// (whose own methods refuse every path outside its bases, which containment must still be
// able to resolve to say "outside"), else fsys itself.
func resolverFor(fsys wfs.FS) pathguard.Resolver {
	if _, ok := fsys.(*wfs.OSFS); ok {
		return pathguard.OSResolver()
	}
	return fsys
}

// In returns an Applier whose relative patch paths (hunk and move paths) resolve against dir
// instead of the root — the working directory of a `cd dir && apply_patch` invocation (see
// [ParseCommand]). A relative dir is taken against the current base. dir must lie inside the
// bases; In never widens them. The result shares the configuration and the commit mutex, and
// may commit plans of the receiver.
//
// Errors: *Error of KindBlocked when dir is outside the bases, KindIO when it cannot be
// resolved.
func (a *Applier) In(dir string) (*Applier, error) {
	abs := a.abs(dir)
	if _, err := a.ct.Check(abs); err != nil {
		return nil, a.containErr(dir, err)
	}
	b := *a
	b.base = abs
	return &b, nil
}

// containErr maps a containment failure onto the package's kinds.
func (a *Applier) containErr(path string, err error) *Error {
	var ge *pathguard.Error
	if errors.As(err, &ge) && ge.Kind == pathguard.KindOutside {
		paths := ge.Paths
		if len(paths) == 0 {
			paths = []string{path}
		}
		return &Error{Kind: KindBlocked, Path: path, Paths: paths, Err: err,
			Msg: "patch contains path outside workspace root: " + path}
	}
	cause := err
	if ge != nil && ge.Err != nil {
		cause = ge.Err
	}
	return &Error{Kind: KindIO, Path: path, Err: err,
		Msg: fmt.Sprintf("Failed to resolve real path: %s: %v", path, cause)}
}

// rooted reports whether the patch path p names its file from a file-system root: an
// absolute path, or on Windows one with a leading separator and no drive (see abs).
func rooted(p string) bool {
	return filepath.IsAbs(p) || p != "" && os.IsPathSeparator(p[0])
}

// abs returns the lexical absolute form of a patch path. On Windows a path with a leading
// separator and no drive ("\x", "/x") is rooted on the drive of the base, as Windows opens
// it, not joined below the base: "/outside/x" names C:\outside\x, which containment then
// judges, rather than a file inside the root.
func (a *Applier) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if p != "" && os.IsPathSeparator(p[0]) {
		return filepath.Clean(filepath.VolumeName(a.base) + p)
	}
	return filepath.Join(a.base, filepath.FromSlash(p))
}

// contain checks every hunk and move path. It returns the resolved paths, the real paths of
// the entries Delete and Add name themselves (a final symbolic link not followed), and the
// outside paths.
func (a *Applier) contain(p *Patch) (map[string]resolved, map[string]string, []string, error) {
	paths := map[string]resolved{}
	parents := map[string]string{}
	var outside []string
	var ioErr *Error
	check := func(raw string) {
		if _, ok := paths[raw]; ok {
			return
		}
		abs := a.abs(raw)
		t, err := a.ct.Check(abs)
		if err != nil {
			e := a.containErr(raw, err)
			if e.Kind == KindBlocked {
				outside = append(outside, raw)
			} else if ioErr == nil {
				ioErr = e
			}
			paths[raw] = resolved{raw: raw, abs: abs}
			return
		}
		paths[raw] = resolved{raw: raw, abs: t.Abs, real: t.Real, rel: t.Rel}
	}
	for _, h := range p.Hunks {
		check(h.Path)
		if h.MoveTo != "" {
			check(h.MoveTo)
		}
	}
	if ioErr != nil {
		return nil, nil, nil, ioErr
	}
	if len(outside) > 0 {
		return paths, nil, outside, nil
	}
	for _, h := range p.Hunks {
		if h.Kind == UpdateFile {
			continue
		}
		r := paths[h.Path]
		t, err := a.ct.Check(filepath.Dir(r.abs))
		if err != nil {
			if h.Kind == AddFile {
				continue // the root itself: planning reports it
			}
			return nil, nil, nil, a.containErr(h.Path, err)
		}
		parents[h.Path] = filepath.Join(t.Real, filepath.Base(r.abs))
	}
	return paths, parents, nil, nil
}

// admit runs the checks every entry point makes before anything is read, in this order:
// validation (KindInvalid, KindEmpty), then containment of every path (KindBlocked, or
// KindIO when a path cannot be resolved). Under the PassThrough policy outside paths are not
// an error: they come back in outside, and the caller must neither read nor write.
func (a *Applier) admit(p *Patch) (paths map[string]resolved, parents map[string]string, outside []string, err error) {
	paths, parents, outside, err = a.admitPaths(p)
	if err != nil || outside != nil {
		return nil, nil, outside, err
	}
	if err := a.twoNames(p, paths); err != nil {
		return nil, nil, nil, err
	}
	return paths, parents, nil, nil
}

// twoNames returns the refusal of the first section that reaches a file an earlier section
// named another way (a symbolic link and its target, two hard links, or two Unicode
// normalisations of one name), or nil.
func (a *Applier) twoNames(p *Patch, paths map[string]resolved) *Error {
	var first *Error
	for _, err := range []error{oneSpelling(p, paths), a.oneFile(p, paths), oneNormalization(p, paths, foldsCase)} {
		var e *Error
		if errors.As(err, &e) && (first == nil || e.Section < first.Section) {
			first = e
		}
	}
	return first
}

// admitPaths is admit without the two-names check: validation and containment.
func (a *Applier) admitPaths(p *Patch) (paths map[string]resolved, parents map[string]string, outside []string, err error) {
	if err := p.Validate(); err != nil {
		return nil, nil, nil, err
	}
	if len(p.Hunks) == 0 {
		return nil, nil, nil, &Error{Kind: KindEmpty, Msg: errEmptyPatch}
	}
	paths, parents, outside, err = a.contain(p)
	switch {
	case err != nil:
		return nil, nil, nil, err
	case len(outside) == 0:
		return paths, parents, nil, nil
	case a.cfg.outside == PassThrough:
		return nil, nil, outside, nil
	}
	return nil, nil, nil, blockedErr(p, outside)
}

// oneSpelling refuses a patch that reaches one file through two names, such as a symbolic
// link and its target: every section is keyed by the real path of its file, and a second
// section naming that file differently would edit it behind the first one's back. Names that
// differ only in case are left to the planner (a case-insensitive volume).
func oneSpelling(p *Patch, paths map[string]resolved) error {
	seen := map[string]string{} // real path → the lexical path that first reached it
	for i, h := range p.Hunks {
		r := paths[h.Path]
		first, ok := seen[r.real]
		if !ok {
			seen[r.real] = r.abs
			continue
		}
		if first != r.abs && !strings.EqualFold(first, r.abs) {
			return &Error{Kind: KindPathConflict, Path: h.Path, Line: h.Line, Section: i + 1,
				Msg: fmt.Sprintf("%s and an earlier section's path are the same file %s (through a symbolic link); name each file one way in a patch",
					h.Path, r.real)}
		}
	}
	return nil
}

// oneFile refuses a patch that reaches one existing file through two real paths (hard links):
// a commit writes each name by renaming a new file over it, so the two sections would leave
// two different files behind. Files are compared with os.SameFile on their Stat results; a
// file system whose FileInfo carries no identity never matches.
func (a *Applier) oneFile(p *Patch, paths map[string]resolved) error {
	type named struct {
		real, path string // path: as the patch names it
		fi         fs.FileInfo
	}
	bySize := map[int64][]named{}
	for i, h := range p.Hunks {
		r := paths[h.Path]
		fi, err := a.fsys.Stat(r.real)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		for _, o := range bySize[fi.Size()] {
			if o.real != r.real && os.SameFile(o.fi, fi) {
				return &Error{Kind: KindPathConflict, Path: h.Path, Line: h.Line, Section: i + 1,
					Msg: fmt.Sprintf("%s and %s are the same file (hard links); name each file one way in a patch",
						h.Path, o.path)}
			}
		}
		bySize[fi.Size()] = append(bySize[fi.Size()], named{r.real, h.Path, fi})
	}
	return nil
}

// blockedErr refuses the patch for its outside paths; Line and Section point at the first
// section that names the first of them, so a model knows which header to fix.
func blockedErr(p *Patch, outside []string) *Error {
	e := &Error{Kind: KindBlocked, Path: outside[0], Paths: outside,
		Msg: "patch contains path outside workspace root: " + outside[0]}
	for i, h := range p.Hunks {
		if h.Path == outside[0] || h.MoveTo == outside[0] {
			e.Line, e.Section = h.Line, i+1
			break
		}
	}
	return e
}

var errEmptyPatch = "No files were modified."

// Plan parses text and plans it without writing (see [Applier.PlanPatch]).
func (a *Applier) Plan(ctx context.Context, text string) (*Plan, error) {
	p, err := Parse(text)
	if err != nil {
		return nil, err
	}
	return a.PlanPatch(ctx, p)
}

// PlanPatch plans p: containment of every path first (nothing is read before), then every
// section in order over an in-memory overlay, so that each section sees the earlier ones.
// The plan holds the final bytes of every changed file and a snapshot of every file read. The
// file system is only read.
//
// Errors (*Error): KindInvalid (p fails Validate), KindEmpty (no sections), KindBlocked (an
// outside path under the Block policy), KindMissingFile, KindExists, KindPathConflict,
// KindNotFound, KindAmbiguous, KindOverlap, and KindIO (unreadable or oversized file, failed
// path resolution, cancelled ctx — errors.Is(err, context.Canceled) then holds). Under the
// PassThrough policy an outside path is not an error: the plan has PassedThrough set.
func (a *Applier) PlanPatch(ctx context.Context, p *Patch) (*Plan, error) {
	paths, parents, outside, err := a.admit(p)
	if err != nil {
		return nil, err
	}
	if outside != nil {
		return &Plan{Patch: p, PassedThrough: true, Outside: outside, owner: a.fam}, nil
	}
	recovered, err := a.recoverFirst(ctx)
	if err != nil {
		return nil, err
	}
	pl := a.newPlanner(ctx, paths, parents)
	if err := pl.plan(p); err != nil {
		return nil, err
	}
	changes, sum := netChanges(pl.order)
	return &Plan{Patch: p, Changes: changes, Report: pl.report, owner: a.fam, entries: pl.order, sum: sum,
		Leftovers: a.leftovers(pl.order), recovered: recovered}, nil
}

// mergeRecovered appends later to early, leaving out the refused journals early already
// reports (each commit meets them again).
func mergeRecovered(early, later []wfs.Recovery) []wfs.Recovery {
	out := slices.Clone(early)
	for _, r := range later {
		if r.Outcome == wfs.Refused && slices.ContainsFunc(early, func(e wfs.Recovery) bool { return e.Journal == r.Journal }) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// recoverFirst finishes or undoes the commits of dead writers in the root before anything is
// read, so that a plan never rests on a tree a killed writer left half switched. When nothing
// is pending it costs one Lstat.
func (a *Applier) recoverFirst(ctx context.Context) ([]wfs.Recovery, error) {
	rec, err := wfs.Recover(ctx, a.fsys, a.root)
	if err != nil {
		return rec, &Error{Kind: KindIO, Err: err, Msg: "Failed to read the tree: an interrupted commit of another writer could not be finished or undone (" +
			err.Error() + "); nothing was written. Retry, or remove the journal it names once no harnesskit writer runs"}
	}
	return rec, nil
}

// leftovers lists the temporaries of interrupted commits in the directories of entries, when
// the file system can list directories.
func (a *Applier) leftovers(entries []*entry) []string {
	dr, ok := a.fsys.(wfs.ReadDirFS)
	if !ok {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, e := range entries {
		dir := filepath.Dir(e.key)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		ents, err := dr.ReadDir(dir)
		if err != nil {
			continue // a directory the plan creates, or one that cannot be listed
		}
		for _, d := range ents {
			if wfs.IsLeftover(d.Name()) {
				out = append(out, filepath.Join(dir, d.Name()))
			}
		}
	}
	return out
}

// Commit writes a plan made by this Applier (or one derived from it by In): all changes or
// none, as one [wfs.Tx]. The transaction locks the directory of every file it writes
// against every other harnesskit writer (other Appliers, other processes, format and
// astsearch), re-checks every file the plan read against its snapshot, journals, stages
// every new file as a temporary sibling, switches them into place in patch order (deletes
// and move sources included), and syncs; if a step fails, every switched file is restored.
// A file with more than one hard link is written in place (every name sees the change), and
// a symbolic link that was patched stays a link to its (updated) target. Before it checks,
// the commit finishes or undoes commits of dead writers (Result.Recovered).
//
// Errors (*Error): KindInvalid (a plan of another Applier, or nil), KindChanged (a file
// changed since planning; nothing written), KindBusy (another writer held a lock too long),
// KindReadOnly, KindTooLarge (a file or its new content over the limit), KindPathConflict (a
// name that turned out to be a file the patch also writes, on a volume that ignores case),
// KindIO ("Failed to apply changes; rolled back: …", or "… rollback was incomplete …" naming
// what could not be restored, or a cancelled ctx before anything was written). A plan with
// PassedThrough set commits nothing.
func (a *Applier) Commit(ctx context.Context, pl *Plan) (*Result, error) {
	if pl == nil || pl.owner != a.fam {
		return nil, &Error{Kind: KindInvalid, Msg: "Invalid plan: commit a plan with the Applier that made it"}
	}
	if pl.PassedThrough {
		return &Result{PassedThrough: true, Outside: pl.Outside}, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, &Error{Kind: KindIO, Msg: "Patch commit was cancelled before anything was written: " + err.Error(), Err: err}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	_, res, err := a.commitEntries(ctx, pl.entries)
	if err != nil {
		return nil, err
	}
	return &Result{Changes: pl.Changes, Report: pl.Report, Summary: pl.Summary(), Leftovers: pl.Leftovers,
		Recovered: mergeRecovered(pl.recovered, res.Recovered)}, nil
}

// Apply parses text, plans it and commits it (Plan + Commit). In the default (atomic) mode
// nothing is written unless every section can be applied. With WithAtomic(false) (part of
// [WithCodexCompat]) a failing section leaves the earlier ones written, as Codex does: every
// section is planned in one pass, each over the result of those before it, planning stops at
// the first section that fails, and the sections before it are committed one at a time, each
// all or nothing. The error then names the failing section ([Error].Section): the sections
// before it are written, it and those after it are not. This holds for a section that reaches
// a file an earlier section named another way too. Only the checks made before anything is
// read refuse the whole patch in every mode: an invalid or empty patch, and a path outside the
// workspace ([KindBlocked]) or one that cannot be resolved.
//
// When earlier sections were written, the error's Written lists their net changes and its
// message names them, so that a model does not send them again.
//
// Errors: those of [Applier.PlanPatch] and [Applier.Commit].
func (a *Applier) Apply(ctx context.Context, text string) (*Result, error) {
	p, err := Parse(text)
	if err != nil {
		return nil, err
	}
	return a.ApplyPatch(ctx, p)
}

// ApplyPatch is Apply for an already parsed patch.
func (a *Applier) ApplyPatch(ctx context.Context, p *Patch) (*Result, error) {
	if a.cfg.atomic {
		pl, err := a.PlanPatch(ctx, p)
		if err != nil {
			return nil, err
		}
		return a.Commit(ctx, pl)
	}
	paths, parents, outside, err := a.admitPaths(p)
	if err != nil {
		return nil, err
	}
	if outside != nil {
		return &Result{PassedThrough: true, Outside: outside}, nil
	}
	early, err := a.recoverFirst(ctx)
	if err != nil {
		return nil, err
	}
	pl := a.newPlanner(ctx, paths, parents)
	pl.perSection = true
	// A section that reaches a file an earlier one named another way fails like any other
	// section: the sections before it are planned and written.
	var planErr error
	if conflict := a.twoNames(p, paths); conflict != nil {
		planErr = pl.plan(&Patch{Hunks: p.Hunks[:conflict.Section-1]})
		if planErr == nil {
			planErr = conflict
		}
	} else {
		planErr = pl.plan(p)
	}
	var leftovers []string
	if planErr == nil {
		leftovers = a.leftovers(pl.order)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	recovered, err := a.commitSections(ctx, pl.sections)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Section > 1 {
			pl.reportWritten(e, e.Section-1, false)
		}
		return nil, err
	}
	if planErr != nil {
		var e *Error
		if errors.As(planErr, &e) && len(pl.sections) > 0 {
			pl.reportWritten(e, len(pl.sections), true)
		}
		return nil, planErr
	}
	changes, sum := netChanges(pl.order)
	return &Result{Changes: changes, Report: pl.report, Summary: sum.String(), Leftovers: leftovers,
		Recovered: mergeRecovered(early, recovered)}, nil
}
