package taskboard

import (
	"fmt"
	"log/slog"
	"math"
	"time"
)

// Defaults of [Options] and [Timing], and the limits of the tools' texts in code points:
// a task_message after trimming, a wait_for_user reason after collapsing spaces.
const (
	MaxMessageChars            = 2000
	MaxWaitReasonChars         = 500
	DefaultMaxReusablePerAgent = 2
	DefaultMaxContextLines     = 50_000
	DefaultWaitProtocol        = "harnesskit.wait_for_user.v1"
	DefaultAbortGrace          = 10 * time.Second
	DefaultHostCallDeadline    = 10 * time.Minute
	DefaultMaxTombstones       = 4096
	DefaultOrchestratorAgent   = "orchestrator"
)

// Bounds of Options.WallClock (when not 0) and Options.AbortGrace.
const (
	minWallClock  = 60 * time.Second
	maxWallClock  = 2_147_483_647 * time.Millisecond
	minAbortGrace = 1 * time.Second
	maxAbortGrace = 60 * time.Second
)

// Options configures a board and its driver; a zero field means its default, and NewBoard
// ignores the driver fields.
type Options struct {
	Clock                Clock         // the board's only source of time; default the wall clock
	MaxReusablePerAgent  int           // reusable and retained-stopped records kept per (parent, agent); default 2
	MaxContextLines      int           // context budget of a reusable record; default 50,000
	OrchestratorAgents   []string      // agents allowed to call orchestrator-only tools; default {"orchestrator"}
	DeferNumberedAliases bool          // launches under a parent never seen managed use the task ID as alias
	WaitGuard            bool          // wait_for_user refuses to arm while children are outstanding
	WaitProtocol         string        // protocol line of wait_for_user; default DefaultWaitProtocol
	WallClock            time.Duration // wall-clock supervisor: 0 (off) or 60 s … 2^31-1 ms
	AbortGrace           time.Duration // grace after the supervisor's abort: 1 s … 60 s; default 10 s
	MaxTombstones        int           // deleted task IDs remembered (oldest forgotten first); default 4096
	Timing               Timing
	Logger               *slog.Logger // the protocols' log lines; default discarded
	NotifyAll            bool         // notify the parent of every run that completes or fails, not only revived ones
	NoReconciliation     bool         // no periodic status-map passes (a v1 host whose map is costly)

	timers timerSource // tests: the driver's timers (default time.AfterFunc)
}

// Timing holds the protocols' deadlines, periods and history sizes; a zero field takes the
// default noted on it, a negative one is refused.
type Timing struct {
	AbortTimeout, VerifyBudget, VerifyPoll, VerifyStable     time.Duration // 10s, 1.5s, 150ms, 300ms
	MessageBudget, CompensationReadTimeout                   time.Duration // 10s, 1.5s
	BaselineTimeout, IdleWaitTimeout, AdmissionTimeout       time.Duration // 5s, 5s, 10s
	NotifyTimeout, NotifyRetryDelay                          time.Duration // 10s, 1s
	StatusReadTimeout, ReconcilePeriod, StopGrace, IdleDelay time.Duration // 5s, 5s, 5s, 2s
	EvidenceReadTimeout, ResultReadTimeout                   time.Duration // 5s, 5s
	NotifyAttempts, EvidenceAttempts                         int           // 3, 3
	MessageHistory, ResultHistory                            int           // 20, 50
	PossiblyStuckAfter, HideUncertainAfter, HideAgedAfter    time.Duration // 120s, 30m, 6h
	HostCallDeadline                                         time.Duration // 10 min; negative: never cancelled
}

// defaultTiming returns the default timing (the values noted on each Timing field).
func defaultTiming() Timing {
	return Timing{
		AbortTimeout: 10 * time.Second, VerifyBudget: 1500 * time.Millisecond,
		VerifyPoll: 150 * time.Millisecond, VerifyStable: 300 * time.Millisecond,
		MessageBudget: 10 * time.Second, MessageHistory: 20,
		BaselineTimeout: 5 * time.Second, IdleWaitTimeout: 5 * time.Second,
		AdmissionTimeout:        10 * time.Second,
		CompensationReadTimeout: 1500 * time.Millisecond,
		NotifyTimeout:           10 * time.Second, NotifyRetryDelay: time.Second, NotifyAttempts: 3,
		StatusReadTimeout: 5 * time.Second, ReconcilePeriod: 5 * time.Second,
		StopGrace: 5 * time.Second, IdleDelay: 2 * time.Second,
		EvidenceReadTimeout: 5 * time.Second, EvidenceAttempts: 3,
		ResultReadTimeout: 5 * time.Second, ResultHistory: 50,
		PossiblyStuckAfter: 120 * time.Second, HideUncertainAfter: 30 * time.Minute,
		HideAgedAfter: 6 * time.Hour, HostCallDeadline: DefaultHostCallDeadline,
	}
}

// budget clamps a computed deadline to at least 1 ms (a zero timeout would mean "none").
func budget(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return time.Millisecond
	}
	return d
}

// withDefaults fills zero fields and validates the rest; the error names the field.
func (o Options) withDefaults() (Options, error) {
	if o.Clock == nil {
		o.Clock = systemClock{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.timers == nil {
		o.timers = realTimers{}
	}
	if o.MaxReusablePerAgent < 0 {
		return o, fmt.Errorf("taskboard: Options.MaxReusablePerAgent must be ≥ 0, got %d", o.MaxReusablePerAgent)
	}
	if o.MaxReusablePerAgent == 0 {
		o.MaxReusablePerAgent = DefaultMaxReusablePerAgent
	}
	if o.MaxContextLines < 0 {
		return o, fmt.Errorf("taskboard: Options.MaxContextLines must be ≥ 0, got %d", o.MaxContextLines)
	}
	if o.MaxContextLines == 0 {
		o.MaxContextLines = DefaultMaxContextLines
	}
	if len(o.OrchestratorAgents) == 0 {
		o.OrchestratorAgents = []string{DefaultOrchestratorAgent}
	} else {
		o.OrchestratorAgents = append([]string(nil), o.OrchestratorAgents...)
	}
	if o.WaitProtocol == "" {
		o.WaitProtocol = DefaultWaitProtocol
	}
	if o.WallClock != 0 && (o.WallClock < minWallClock || o.WallClock > maxWallClock) {
		return o, fmt.Errorf("taskboard: Options.WallClock must be 0 (off) or between %d and %d ms, got %d ms",
			minWallClock.Milliseconds(), maxWallClock.Milliseconds(), o.WallClock.Milliseconds())
	}
	if o.AbortGrace == 0 {
		o.AbortGrace = DefaultAbortGrace
	}
	if o.AbortGrace < minAbortGrace || o.AbortGrace > maxAbortGrace {
		return o, fmt.Errorf("taskboard: Options.AbortGrace must be between %d and %d ms, got %d ms",
			minAbortGrace.Milliseconds(), maxAbortGrace.Milliseconds(), o.AbortGrace.Milliseconds())
	}
	if o.MaxTombstones < 0 {
		return o, fmt.Errorf("taskboard: Options.MaxTombstones must be ≥ 0, got %d", o.MaxTombstones)
	}
	if o.MaxTombstones == 0 {
		o.MaxTombstones = DefaultMaxTombstones
	}
	t, err := o.Timing.withDefaults()
	if err != nil {
		return o, err
	}
	o.Timing = t
	return o, nil
}

func (t Timing) withDefaults() (Timing, error) {
	d := defaultTiming()
	hostDeadline := t.HostCallDeadline
	t.HostCallDeadline = 0
	durs := []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"AbortTimeout", &t.AbortTimeout, d.AbortTimeout},
		{"VerifyBudget", &t.VerifyBudget, d.VerifyBudget},
		{"VerifyPoll", &t.VerifyPoll, d.VerifyPoll},
		{"VerifyStable", &t.VerifyStable, d.VerifyStable},
		{"MessageBudget", &t.MessageBudget, d.MessageBudget},
		{"BaselineTimeout", &t.BaselineTimeout, d.BaselineTimeout},
		{"IdleWaitTimeout", &t.IdleWaitTimeout, d.IdleWaitTimeout},
		{"AdmissionTimeout", &t.AdmissionTimeout, d.AdmissionTimeout},
		{"CompensationReadTimeout", &t.CompensationReadTimeout, d.CompensationReadTimeout},
		{"NotifyTimeout", &t.NotifyTimeout, d.NotifyTimeout},
		{"NotifyRetryDelay", &t.NotifyRetryDelay, d.NotifyRetryDelay},
		{"StatusReadTimeout", &t.StatusReadTimeout, d.StatusReadTimeout},
		{"ReconcilePeriod", &t.ReconcilePeriod, d.ReconcilePeriod},
		{"StopGrace", &t.StopGrace, d.StopGrace},
		{"IdleDelay", &t.IdleDelay, d.IdleDelay},
		{"EvidenceReadTimeout", &t.EvidenceReadTimeout, d.EvidenceReadTimeout},
		{"ResultReadTimeout", &t.ResultReadTimeout, d.ResultReadTimeout},
		{"PossiblyStuckAfter", &t.PossiblyStuckAfter, d.PossiblyStuckAfter},
		{"HideUncertainAfter", &t.HideUncertainAfter, d.HideUncertainAfter},
		{"HideAgedAfter", &t.HideAgedAfter, d.HideAgedAfter},
	}
	for _, f := range durs {
		if *f.v < 0 {
			return t, fmt.Errorf("taskboard: Options.Timing.%s must not be negative, got %s", f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
		*f.v = budget(*f.v)
	}
	switch {
	case hostDeadline < 0:
		t.HostCallDeadline = -1
	case hostDeadline == 0:
		t.HostCallDeadline = d.HostCallDeadline
	default:
		t.HostCallDeadline = hostDeadline
	}
	ints := []struct {
		name string
		v    *int
		def  int
	}{
		{"MessageHistory", &t.MessageHistory, d.MessageHistory},
		{"NotifyAttempts", &t.NotifyAttempts, d.NotifyAttempts},
		{"EvidenceAttempts", &t.EvidenceAttempts, d.EvidenceAttempts},
		{"ResultHistory", &t.ResultHistory, d.ResultHistory},
	}
	for _, f := range ints {
		if *f.v < 0 || *f.v > math.MaxInt32 {
			return t, fmt.Errorf("taskboard: Options.Timing.%s must be between 0 and %d, got %d", f.name, math.MaxInt32, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	return t, nil
}

// Board is the pure job board: records, aliases, generations, leases, tombstones and the
// wait-for-user latch. It is not safe for concurrent use; [Driver.Do] serialises access.
type Board struct {
	clock Clock
	opts  Options

	records  map[string]*Record
	children map[string]map[string]struct{} // parent → task IDs
	aliasIdx map[aliasKey]string            // (parent, alias) → task ID
	aliases  map[aliasKey]uint64            // last number per (parent, prefix)
	nextGen  uint64

	leases     map[string]leaseGrant // live leases by task ID
	leaseSince map[string]time.Time  // when each live lease was acquired
	nextToken  uint64

	tombs     map[string]tombstone
	epochs    map[string]uint64
	nextEpoch uint64
	tombQ     []tombRef // tombstones oldest first, for the MaxTombstones cap
	forced    []Lease   // audit log of ForceRelease, newest last, bounded

	managed  map[string]bool
	waits    map[string]bool   // armed wait_for_user latches
	lastUser map[string]string // last real user message identity per session

	tracked map[string]uint64       // runs a revive registered: the parent is notified when they finish
	shown   map[string][]shownEntry // per parent, the "Needs acknowledgement" lines last shown

	self     string // the incarnation that holds new leases (shared boards)
	notices  []Notice
	disposed bool
}

type aliasKey struct{ parent, prefix string }

// NewBoard returns an empty board for tests; a bad option is an error naming it.
func NewBoard(o Options) (*Board, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Board{
		clock:      o.Clock,
		opts:       o,
		records:    map[string]*Record{},
		children:   map[string]map[string]struct{}{},
		aliasIdx:   map[aliasKey]string{},
		aliases:    map[aliasKey]uint64{},
		leases:     map[string]leaseGrant{},
		leaseSince: map[string]time.Time{},
		tombs:      map[string]tombstone{},
		epochs:     map[string]uint64{},
		managed:    map[string]bool{},
		waits:      map[string]bool{},
		lastUser:   map[string]string{},
		tracked:    map[string]uint64{},
		shown:      map[string][]shownEntry{},
	}, nil
}

// now returns the injected clock's reading.
func (b *Board) now() time.Time { return b.clock.Now() }

// options returns the board's options with every default filled in.
func (b *Board) options() Options {
	o := b.opts
	o.OrchestratorAgents = append([]string(nil), o.OrchestratorAgents...)
	return o
}

// timing returns the board's timing with every default filled in.
func (b *Board) timing() Timing { return b.opts.Timing }

// Manage marks sessionID as an orchestrator session managed by this board.
func (b *Board) manage(sessionID string) {
	if sessionID != "" {
		b.managed[sessionID] = true
	}
}

// isManaged reports whether sessionID was registered with [Board.Manage].
func (b *Board) isManaged(sessionID string) bool { return b.managed[sessionID] }

// dispose marks the board disposed; every later dispatch check of a machine fails.
// Records, leases and waits stay as they are.
func (b *Board) dispose() { b.disposed = true }

// isDisposed reports whether the board was disposed (its driver closed).
func (b *Board) isDisposed() bool { return b.disposed }

// drain returns the notices emitted since the last drain, oldest first, and empties the
// outbox.
func (b *Board) drain() []Notice {
	n := b.notices
	b.notices = nil
	return n
}

func (b *Board) emit(kind string, r *Record) {
	b.notices = append(b.notices, Notice{
		Kind: kind, TaskID: r.TaskID, ParentID: r.ParentID, Generation: r.Generation,
		TerminalRevision: r.TerminalRevision, State: r.State,
	})
}

// Notice is what a subscriber of [Driver.OnTerminal] or [Driver.OnLaunched] receives.
type Notice struct {
	Kind                         string // "terminal" or "launched"
	TaskID, ParentID             string
	Generation, TerminalRevision uint64
	State                        State
}

// prune forgets per-task bookkeeping for records that are gone or moved on, so memory
// follows the retention caps, not the history of the process.
func (b *Board) prune() {
	for id, gen := range b.tracked {
		if r, ok := b.records[id]; !ok || r.Generation != gen {
			delete(b.tracked, id)
		}
	}
	for parent := range b.shown {
		if len(b.children[parent]) == 0 {
			delete(b.shown, parent)
		}
	}
}
