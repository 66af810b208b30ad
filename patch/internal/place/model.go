package place

import (
	"fmt"
	"strconv"
)

// The core's input: the chunks of one Update section, as the face parsed them. The types
// mirror the face's (the Op bytes and Level numbers are the same, so the face converts
// them with a type conversion).

// A Chunk is one change of a section: its stacked "@@" anchors (outermost first), its lines,
// whether it is pinned to the end of the file, and its 1-based line in the patch text.
type Chunk struct {
	Anchors []string
	Lines   []Line
	EOF     bool
	Line    int
}

// A Line is one line of a chunk: its Op, its text without the marker, and its 1-based line in
// the patch text (0 when the chunk was built in code).
type Line struct {
	Op   Op
	Text string
	Line int
}

// An Op says what a chunk line does: Context (the line is in the file and stays), Insert (the
// line is added) or Remove (the line is in the file and goes); the bytes are the patch's
// markers.
type Op byte

const Context, Insert, Remove Op = ' ', '+', '-'

// A Level is one rung of the tolerance ladder, from strict to loose (see normalize).
type Level uint8

// The levels in ladder order.
const (
	LevelExact Level = iota
	LevelTrimEnd
	LevelUnicode
	LevelUnicodeTrimEnd
	LevelTrim
	LevelUnicodeTrim
)

var levelNames = [...]string{"exact", "trim-end", "unicode", "unicode-trim-end", "trim", "unicode-trim"}

// String returns the level's name as reports and messages use it ("exact", "trim-end", …).
func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("level(%d)", int(l))
}

// A Strategy names how a chunk was placed. A ladder level's strategy is the level's name
// ([LevelStrategy]); the others are listed here. The face's Strategy has the same values.
type Strategy string

// The strategies that are not ladder levels.
const (
	StrategyAppend         Strategy = "append"          // a pure insertion at the end of the file
	StrategyAnchor         Strategy = "anchor"          // a pure insertion after its anchor
	StrategyPrefixSuffix   Strategy = "prefix-suffix"   // rescue: context edges around the change
	StrategyLCS            Strategy = "lcs"             // rescue: longest common subsequence
	StrategyStaleEdges     Strategy = "stale-edges"     // rescue: stale outer context left out
	StrategyLineNumbers    Strategy = "line-numbers"    // read-tool line numbers removed
	StrategyAlreadyApplied Strategy = "already-applied" // the change is in the file already
)

// LevelStrategy is the strategy of a chunk placed by the ladder at level l.
func LevelStrategy(l Level) Strategy { return Strategy(l.String()) }

// The ladder strategies, named for the code that tests for them.
var (
	StrategyExact          = LevelStrategy(LevelExact)
	StrategyTrimEnd        = LevelStrategy(LevelTrimEnd)
	StrategyUnicode        = LevelStrategy(LevelUnicode)
	StrategyUnicodeTrimEnd = LevelStrategy(LevelUnicodeTrimEnd)
	StrategyTrim           = LevelStrategy(LevelTrim)
	StrategyUnicodeTrim    = LevelStrategy(LevelUnicodeTrim)
)

// A ChunkReport says how one chunk was placed; the face copies it field by field into its
// own. Start and Pairing are 1-based lines of the file as it was before the section.
type ChunkReport struct {
	Section, Chunk int // 1-based
	Path           string
	Strategy       Strategy
	AnchorLevel    Level
	Start, Len     int
	Removed, Added int
	BlankRetry     bool
	Notes          []string
	// Pairing: for each old line of the chunk (context and removed, in order), the file line
	// it was paired with, 0 when unpaired; nil for pure insertions.
	Pairing []int
}

// A Kind is the category of a failure to place a chunk; the face maps each to its own kind.
type Kind uint8

// The kinds the core reports. KindIO stands for a failure of no other kind (the face's
// internal class).
const (
	KindNotFound Kind = iota + 1
	KindAmbiguous
	KindOverlap
	KindAlreadyApplied
	KindChanged
	KindIO
)

var kindNames = [...]string{KindNotFound: "not_found", KindAmbiguous: "ambiguous", KindOverlap: "overlap",
	KindAlreadyApplied: "already_applied", KindChanged: "changed", KindIO: "io"}

// String returns the kind's snake_case name, as the face's kind of the same meaning.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Error is a failure to place a chunk. Its fields are those of the face's error that the core
// knows; Msg is written for the model (without the face's class prefix).
type Error struct {
	Kind       Kind
	Path       string // as written in the patch
	Line       int    // 1-based patch-text line, 0 if none
	Section    int    // 1-based
	Chunk      int    // 1-based, 0 if none
	FileLine   int    // 1-based: first diverging file line (NotFound) or first candidate (Ambiguous)
	Candidates []int  // 1-based candidate start lines (Ambiguous)
	Msg        string
	Err        error // cause, may be nil
}

// Error returns Msg, or the cause's text, or the kind's name.
func (e *Error) Error() string {
	if e.Msg == "" && e.Err != nil {
		return e.Err.Error()
	}
	if e.Msg == "" {
		return e.Kind.String()
	}
	return e.Msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Config is what the core needs of the face's configuration. The face embeds it in its own
// and sets it from its options; the zero value is not useful (see the face's defaults).
type Config struct {
	Codex        bool  // Codex's locating: first exact hit, no out-of-order or already-applied checks
	MaxTol       Level // the loosest ladder level tried
	PrefixSuffix bool  // the prefix/suffix rescue is on
	LCS          bool  // the LCS rescue is on
	StaleEdges   bool  // the stale-edges rescue is on
	LCSMaxLines  int   // the longest chunk (old lines) the LCS rescue tries
	LCSMaxCands  int   // the most candidate windows the LCS rescue scores
	// LCSThreshold is the share of the chunk's old lines a window must keep.
	LCSThreshold float64
	// Margin is the LCS rescue's required lead of the best window over the runner-up, for a
	// chunk of m old lines.
	Margin    func(m int) int
	WorkLimit int64 // the deterministic work limit of locating, rescuing and diagnosing one chunk
}
