package patch

import (
	"fmt"
	"io"
	"io/fs"
	"math"

	"github.com/harnesskit/harnesskit/pathguard"

	"github.com/harnesskit/harnesskit/patch/internal/place"
)

// Defaults of the tunable limits. Each can be overridden per [Applier]: the rescue limits
// with [WithRescue], the others with the matching option.
const (
	// DefaultLCSMaxLines: chunks with more old lines than this are not LCS-rescued.
	DefaultLCSMaxLines = 48
	// DefaultLCSMaxCandidates: with more candidate windows than this the LCS rescue gives up.
	DefaultLCSMaxCandidates = 64
	// DefaultLCSThreshold: the share of old lines an LCS window must keep.
	DefaultLCSThreshold = 0.70
	// DefaultWorkLimit bounds the rescue work of one chunk (line comparisons and LCS cells).
	DefaultWorkLimit int64 = 4_000_000
	// DefaultMaxFileSize: larger files, and Add File contents, are refused with KindTooLarge
	// (such a file can still be deleted).
	DefaultMaxFileSize int64 = 64 << 20
	// DefaultFileMode and DefaultDirMode are the permissions of created files and directories
	// (the process umask applies on real file systems).
	DefaultFileMode fs.FileMode = 0o644
	DefaultDirMode  fs.FileMode = 0o755
)

// An Option configures an [Applier]; pass options to [New].
type Option func(*config)

// OutsidePolicy says what happens when a patch names a path outside the root and worktrees.
type OutsidePolicy uint8

const (
	// Block refuses the whole patch with KindBlocked (the default).
	Block OutsidePolicy = iota
	// PassThrough returns no error and touches nothing: the result has PassedThrough set and
	// lists the outside paths, and Rewrite returns the input unchanged, so that a host can run
	// its own permission flow.
	PassThrough
)

func (p OutsidePolicy) String() string {
	if p == PassThrough {
		return "pass-through"
	}
	return "block"
}

// EOLMode selects how line endings, the final newline and a byte-order mark are treated.
type EOLMode uint8

const (
	// EOLPreserve (the default) keeps each line's own terminator, gives inserted lines the
	// file's dominant terminator, keeps the final-newline state and keeps a UTF-8 BOM.
	EOLPreserve EOLMode = iota
	// EOLCodex reproduces Codex: inserted lines take the terminator of the file's first line
	// break, an updated file always ends with a line break, and a BOM is ordinary content of
	// line 1.
	EOLCodex
)

func (m EOLMode) String() string {
	if m == EOLCodex {
		return "codex"
	}
	return "preserve"
}

// A Level is one rung of the tolerance ladder used to compare a patch line with a file line.
// Levels are ordered from strict to loose; [RescueOptions].MaxTolerance caps the ladder.
type Level uint8

const (
	LevelExact          Level = iota // equal bytes
	LevelTrimEnd                     // trailing whitespace removed from both
	LevelUnicode                     // typographic punctuation and spaces mapped, no trimming
	LevelUnicodeTrimEnd              // mapped, then trailing whitespace removed
	LevelTrim                        // leading and trailing whitespace removed
	LevelUnicodeTrim                 // mapped, then both ends trimmed
)

// String returns the level's name as used in reports and messages ("exact", "trim-end", …).
func (l Level) String() string { return place.Level(l).String() }

// Strategy names how a chunk was placed: one of the ladder levels, "append" (a pure insertion
// at the end of the file), "anchor" (a pure insertion after its @@ anchor), "prefix-suffix" or
// "lcs" (a rescue).
type Strategy string

// The strategies of [ChunkReport].
const (
	StrategyExact          Strategy = "exact"
	StrategyTrimEnd        Strategy = "trim-end"
	StrategyUnicode        Strategy = "unicode"
	StrategyUnicodeTrimEnd Strategy = "unicode-trim-end"
	StrategyTrim           Strategy = "trim"
	StrategyUnicodeTrim    Strategy = "unicode-trim"
	StrategyAppend         Strategy = "append"
	StrategyAnchor         Strategy = "anchor"
	StrategyPrefixSuffix   Strategy = "prefix-suffix"
	StrategyLCS            Strategy = "lcs"
	// StrategyStaleEdges: a rescue that left out outer context lines the file no longer has
	// (see [RescueOptions].StaleEdges).
	StrategyStaleEdges Strategy = "stale-edges"
	// StrategyLineNumbers: the chunk's lines carried the line numbers a read tool shows
	// ("    12\t…" or "    12→…"), numbered as the file's own lines where they match; the
	// numbers were removed.
	StrategyLineNumbers Strategy = "line-numbers"
	// StrategyAlreadyApplied: the chunk's change was already in the file, soundly (its new
	// lines at one place only, its removed lines gone), and the patch's other chunks were
	// applied around it; Start and Len give where its new lines are. Nothing of it was written.
	StrategyAlreadyApplied Strategy = "already-applied"
)

// config is the immutable configuration of an Applier.
type config struct {
	place.Config  // what the matching core reads: Codex's locating, the ladder's cap, the rescues
	worktrees     []string
	outside       OutsidePolicy
	overwrite     bool
	eol           EOLMode
	atomic        bool
	maxFileSize   int64
	fileMode      fs.FileMode
	dirMode       fs.FileMode
	relPaths      bool
	mergeRepeated bool
	random        io.Reader
	formatter     Formatter
	containment   *pathguard.Containment
}

func defaultConfig() config {
	c := config{
		atomic:      true,
		maxFileSize: DefaultMaxFileSize,
		fileMode:    DefaultFileMode,
		dirMode:     DefaultDirMode,
		relPaths:    true,
	}
	WithRescue(DefaultRescue())(&c)
	return c
}

// defaultMargin is the LCS rescue's required lead of the best window over the runner-up:
// max(1, ceil(m/10)) for a chunk of m old lines.
func defaultMargin(m int) int { return max(1, (m+9)/10) }

// GoString makes table-test failures readable.
func (c config) GoString() string {
	return fmt.Sprintf("patch.config{worktrees:%q outside:%v overwrite:%v eol:%v atomic:%v maxTol:%v "+
		"prefixSuffix:%v lcs:%v staleEdges:%v lcsLimits:%d/%d/%.2f workLimit:%d maxFileSize:%d "+
		"modes:%v/%v relPaths:%v merge:%v}",
		c.worktrees, c.outside, c.overwrite, c.eol, c.atomic, c.MaxTol, c.PrefixSuffix,
		c.LCS, c.StaleEdges, c.LCSMaxLines, c.LCSMaxCands, c.LCSThreshold,
		c.WorkLimit, c.maxFileSize, c.fileMode, c.dirMode, c.relPaths, c.mergeRepeated)
}

func (c *config) validate() error {
	switch {
	case c.MaxTol > place.LevelUnicodeTrim:
		return fmt.Errorf("patch: RescueOptions.MaxTolerance: unknown level %d", c.MaxTol)
	case c.LCSMaxLines < 1 || c.LCSMaxCands < 1:
		return fmt.Errorf("patch: RescueOptions: LCSMaxLines and LCSMaxCandidates must be positive (%d, %d)", c.LCSMaxLines, c.LCSMaxCands)
	case math.IsNaN(c.LCSThreshold) || c.LCSThreshold <= 0 || c.LCSThreshold > 1:
		return fmt.Errorf("patch: RescueOptions.LCSThreshold: threshold %v outside (0, 1]", c.LCSThreshold)
	case c.Margin == nil:
		return fmt.Errorf("patch: RescueOptions.Margin: nil function")
	case c.WorkLimit < 1:
		return fmt.Errorf("patch: RescueOptions.WorkLimit: %d is not positive", c.WorkLimit)
	case c.maxFileSize < 0:
		return fmt.Errorf("patch: WithMaxFileSize: %d is negative", c.maxFileSize)
	case c.outside > PassThrough:
		return fmt.Errorf("patch: WithOutsidePolicy: unknown policy %d", c.outside)
	case c.eol > EOLCodex:
		return fmt.Errorf("patch: WithEOL: unknown mode %d", c.eol)
	}
	return nil
}

// WithWorktrees adds allowed bases besides the root (absolute directories). Paths inside a
// worktree may be patched; relative patch paths still resolve against the root (or the
// directory given to [Applier.In]). Ignored when [WithContainment] is given.
func WithWorktrees(dirs ...string) Option {
	return func(c *config) { c.worktrees = append(c.worktrees, dirs...) }
}

// WithOutsidePolicy sets what happens to a patch naming a path outside the bases: [Block]
// (default) or [PassThrough].
func WithOutsidePolicy(p OutsidePolicy) Option { return func(c *config) { c.outside = p } }

// WithOverwrite lets Add File and Move to replace an existing regular file (Codex behaviour).
// Default false: such a patch fails with KindExists. A directory is never replaced.
func WithOverwrite(on bool) Option { return func(c *config) { c.overwrite = on } }

// WithEOL selects the line-ending treatment; default [EOLPreserve].
func WithEOL(m EOLMode) Option { return func(c *config) { c.eol = m } }

// WithAtomic(false) makes a failing section leave the earlier sections written (Codex
// behaviour): the sections are planned in one pass, each over the result of those before it,
// up to the first one that fails, and the planned sections are committed one at a time, each
// all or nothing. Each file write is still a temp file plus rename with a hash re-check.
// Default true: all sections are planned first and committed all or nothing.
func WithAtomic(on bool) Option { return func(c *config) { c.atomic = on } }

// WithCodexCompat restores Codex's behaviour: it sets WithOverwrite(true), WithEOL(EOLCodex)
// and WithAtomic(false), and locates chunks as Codex does (the package's Codex compatibility
// section says how, and what stays as in the default mode). Options given after it override
// its parts.
func WithCodexCompat() Option {
	return func(c *config) {
		c.overwrite = true
		c.eol = EOLCodex
		c.atomic = false
		c.Codex = true
	}
}

// RescueOptions tune how hard an [Applier] tries to place a chunk whose lines do not match
// the file as written. Start from [DefaultRescue] and change what you need:
//
//	r := patch.DefaultRescue()
//	r.LCS = false
//	a, err := patch.New(fsys, root, patch.WithRescue(r))
//
// [New] refuses values out of range (a level beyond the ladder, limits that are not
// positive, a nil Margin) with an error naming the field.
type RescueOptions struct {
	// MaxTolerance caps the tolerance ladder (default [LevelUnicodeTrim], the whole ladder);
	// LevelUnicodeTrimEnd, for example, never matches across leading whitespace. The cap
	// applies to chunks and anchors. A chunk that matches (or is ambiguous) only beyond the cap
	// fails instead of being rescued, and the edges of rescues are always compared with exact,
	// trim-end, unicode and unicode-trim-end, so that lowering the cap never turns a failure
	// into a success.
	MaxTolerance Level
	// PrefixSuffix and LCS turn the prefix/suffix and longest-common-subsequence rescues on.
	PrefixSuffix, LCS bool
	// StaleEdges turns the stale-edges rescue on: a chunk whose outer context lines the file
	// no longer has is placed by the rest of its lines when they match exactly one place, no
	// other place resembles them, and the context line next to each change is still there.
	// It runs after prefix/suffix and LCS, in the default mode only: its guards include the
	// checks for changes already applied, which Codex compatibility leaves out.
	StaleEdges bool
	// LCSMaxLines is the largest chunk (old lines) the LCS rescue tries, LCSMaxCandidates the
	// most candidate windows it weighs, LCSThreshold the share of old lines a window must keep.
	LCSMaxLines, LCSMaxCandidates int
	LCSThreshold                  float64
	// Margin gives how far the best LCS window must lead the runner-up for a chunk of m old
	// lines (default max(1, ceil(m/10))).
	Margin func(oldLines int) int
	// WorkLimit bounds the rescue work of one chunk in units, one line comparison or one LCS
	// cell each; a rescue that reaches it is a miss.
	WorkLimit int64
}

// DefaultRescue returns the rescue settings an [Applier] has without [WithRescue]: the
// whole ladder, every rescue on, and the Default… limits.
func DefaultRescue() RescueOptions {
	return RescueOptions{
		MaxTolerance:     LevelUnicodeTrim,
		PrefixSuffix:     true,
		LCS:              true,
		StaleEdges:       true,
		LCSMaxLines:      DefaultLCSMaxLines,
		LCSMaxCandidates: DefaultLCSMaxCandidates,
		LCSThreshold:     DefaultLCSThreshold,
		Margin:           defaultMargin,
		WorkLimit:        DefaultWorkLimit,
	}
}

// WithRescue replaces the rescue settings (default [DefaultRescue]).
func WithRescue(r RescueOptions) Option {
	return func(c *config) {
		c.MaxTol, c.PrefixSuffix, c.LCS, c.StaleEdges = place.Level(r.MaxTolerance), r.PrefixSuffix, r.LCS, r.StaleEdges
		c.LCSMaxLines, c.LCSMaxCands, c.LCSThreshold = r.LCSMaxLines, r.LCSMaxCandidates, r.LCSThreshold
		c.Margin, c.WorkLimit = r.Margin, r.WorkLimit
	}
}

// WithMaxFileSize refuses to update or move files larger than n bytes, and Add File contents
// larger than n, with KindTooLarge (default 64 MiB); such a file can still be deleted.
func WithMaxFileSize(n int64) Option { return func(c *config) { c.maxFileSize = n } }

// WithNewFileMode sets the permissions of created files and directories (defaults 0o644 and
// 0o755; the umask applies on real file systems). Updated files keep their mode and moved files
// carry the source's mode.
func WithNewFileMode(file, dir fs.FileMode) Option {
	return func(c *config) { c.fileMode, c.dirMode = file.Perm(), dir.Perm() }
}

// WithRelativePaths makes Rewrite render absolute paths inside the bases relative to the root
// (default true).
func WithRelativePaths(on bool) Option { return func(c *config) { c.relPaths = on } }

// WithMergeRepeated makes Rewrite merge repeated sections for one path into one (for hosts
// that read every section from the original disk): Add + Update(s) [+ Move] become one Add,
// Update + Update(s) [+ Move] one Update with minimised chunks (or one whole-file chunk), each
// verified with the Codex model; sections that cannot be merged faithfully stay apart.
// Default false.
func WithMergeRepeated(on bool) Option { return func(c *config) { c.mergeRepeated = on } }

// withRandom sets the source of temporary-file names (default crypto/rand); tests use it for
// deterministic names (export_test.go).
func withRandom(r io.Reader) Option { return func(c *config) { c.random = r } }

// WithContainment replaces the default containment (built from the root, the worktrees and a
// resolver over the applier's FS). Its bases are then the allowed bases.
func WithContainment(ct *pathguard.Containment) Option {
	return func(c *config) { c.containment = ct }
}
