package loopguard

import (
	"fmt"
	"slices"
	"strings"
)

// Defaults of the options. They are the reference plugin's constants, except the bounds
// it does not have (MaxPending, MaxTasks).
const (
	DefaultWarnAt      = 3   // loop and supervision notices from this run on
	DefaultBlockAt     = 5   // a block tool is refused once its streak reaches this
	DefaultWaitWarnAt  = 2   // the wait notice from this completed wait call on
	DefaultWaitBlockAt = 2   // a wait call is refused once this many completed in the turn
	DefaultMaxSessions = 512 // session records kept (least recently used evicted)
	DefaultMaxPending  = 256 // admitted calls awaiting their After, per session
	DefaultMaxTasks    = 64  // supervised task ids per session

	// DefaultMaxMessageIDs is how many distinct user message ids a session remembers: a
	// message whose id is among them is a re-delivery and does nothing.
	DefaultMaxMessageIDs = 256
)

// Default tool sets. Names are compared lower-cased.
var (
	defaultBlockTools       = []string{"read", "grep", "glob"}
	defaultExemptTools      = []string{"task", "task_cancel", "task_message", "task_revive"}
	defaultWaitTools        = []string{"wait_for_user", "wait_for_background_tasks"}
	defaultSupervisionTools = []string{"task_status", "task_result"}
)

// Default markers and notice bodies (see [Notices]).
const (
	DefaultLoopMarker = "[REPEATED TOOL CALLS - STOP]"
	DefaultWaitMarker = "[REPEATED WAIT TOOL - END TURN]"

	DefaultLoopNotice = "You have made this exact tool call (<tool> with identical arguments) <N> times in a row and received identical results each time. You are in a loop and making no progress.\n\n" +
		"Stop repeating this call. Instead:\n" +
		"1. Use the result above: it already contains everything this call can tell you.\n" +
		"2. If you need different information, make a different call (another path, pattern or tool).\n" +
		"3. If the task is done, give your final answer now instead of calling more tools."
	DefaultSupervisionNotice = "You have checked task <id> <N> times in a row and its state is still <state>. Checking again will not make it change sooner.\n\n" +
		"Stop polling this task now: do other useful work, or end your turn and let its result reach you."
	DefaultWaitNotice = "You have already called a wait tool <N> times in this turn. Its result told you to end the turn; do not call it again.\n\n" +
		"Stop calling tools. Reply to the user in plain text and end your turn. The next distinct external user message resumes normal work."
)

// Notices holds the markers and bodies of the appended notices. Bodies are templates:
// <tool> (lower-cased tool name), <N> (the run count), <id> (task id) and <state> (task
// state) are replaced. A zero field keeps its default. A notice is appended as
// "\n\n" + marker + "\n\n" + body + "\n"; an output that already contains the marker gets
// no second notice. The supervision notice uses LoopMarker.
type Notices struct {
	LoopMarker, WaitMarker  string
	Loop, Supervision, Wait string
}

// config is what the options set. It is immutable once New returns.
type config struct {
	warnAt, blockAt         int
	waitWarnAt, waitBlockAt int
	maxSessions             int
	maxPending              int
	maxTasks                int
	maxMessages             int
	resetOnUser             bool
	block, exempt           map[string]bool
	wait, supervision       map[string]bool
	notices                 Notices

	// kinds indexes the four sets above by tool name, with the class precedence applied, so
	// that a call is classified by one map lookup. New builds it; a name in no set
	// is an ordinary tool that is never refused (the zero toolKind).
	kinds map[string]toolKind
	few   []namedKind // kinds as a slice when it is small (see maxFewKinds), else nil
}

// GoString prints the configuration readably in test failures.
func (c *config) GoString() string {
	return fmt.Sprintf("loopguard.config{warnAt:%d blockAt:%d waitWarnAt:%d waitBlockAt:%d maxSessions:%d maxPending:%d maxTasks:%d maxMessages:%d resetOnUser:%t block:%v exempt:%v wait:%v supervision:%v}",
		c.warnAt, c.blockAt, c.waitWarnAt, c.waitBlockAt, c.maxSessions, c.maxPending, c.maxTasks, c.maxMessages, c.resetOnUser,
		setNames(c.block), setNames(c.exempt), setNames(c.wait), setNames(c.supervision))
}

func setNames(m map[string]bool) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

func toSet(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[strings.ToLower(n)] = true
	}
	return m
}

func defaultConfig() config {
	return config{
		warnAt: DefaultWarnAt, blockAt: DefaultBlockAt,
		waitWarnAt: DefaultWaitWarnAt, waitBlockAt: DefaultWaitBlockAt,
		maxSessions: DefaultMaxSessions, maxPending: DefaultMaxPending, maxTasks: DefaultMaxTasks,
		maxMessages: DefaultMaxMessageIDs,
		resetOnUser: true,
		block:       toSet(defaultBlockTools),
		exempt:      toSet(defaultExemptTools),
		wait:        toSet(defaultWaitTools),
		supervision: toSet(defaultSupervisionTools),
		notices: Notices{
			LoopMarker: DefaultLoopMarker, WaitMarker: DefaultWaitMarker,
			Loop: DefaultLoopNotice, Supervision: DefaultSupervisionNotice, Wait: DefaultWaitNotice,
		},
	}
}

func (c *config) validate() error {
	switch {
	case c.warnAt < 1:
		return fmt.Errorf("%w: WithWarnAt(%d): the warning threshold must be at least 1", ErrInvalidOption, c.warnAt)
	case c.blockAt < c.warnAt:
		return fmt.Errorf("%w: WithBlockAt(%d) is below WithWarnAt(%d): a call must be warned about before it is refused", ErrInvalidOption, c.blockAt, c.warnAt)
	case c.waitWarnAt < 1 || c.waitBlockAt < 1:
		return fmt.Errorf("%w: WithWaitLimits(%d, %d): both limits must be at least 1", ErrInvalidOption, c.waitWarnAt, c.waitBlockAt)
	case c.maxSessions < 1:
		return fmt.Errorf("%w: WithMaxSessions(%d): at least 1 session must be kept", ErrInvalidOption, c.maxSessions)
	case c.maxPending < 1:
		return fmt.Errorf("%w: WithMaxPending(%d): at least 1 pending call must be kept", ErrInvalidOption, c.maxPending)
	case c.maxTasks < 1:
		return fmt.Errorf("%w: WithMaxTasks(%d): at least 1 task must be kept", ErrInvalidOption, c.maxTasks)
	case c.maxMessages < 1:
		return fmt.Errorf("%w: WithMaxMessageIDs(%d): at least 1 message id must be kept", ErrInvalidOption, c.maxMessages)
	}
	return nil
}

// An Option configures [New]. Options are applied in order; a later option
// for the same setting wins. New checks the result once and returns an error wrapping
// [ErrInvalidOption] if it is out of range.
type Option func(*config)

// WithWarnAt sets the run count from which the loop and supervision notices are appended
// (default 3). It must be at least 1 and at most the BlockAt value.
func WithWarnAt(n int) Option { return func(c *config) { c.warnAt = n } }

// WithBlockAt sets the run count at which the next identical call to a block tool is
// refused (default 5). It must be at least the WarnAt value. Only tools of
// [WithBlockTools] are ever refused by the loop guard.
func WithBlockAt(n int) Option { return func(c *config) { c.blockAt = n } }

// WithBlockTools replaces the set of ordinary tools that may be refused (default read,
// grep, glob). Other ordinary tools are warn-only. A name that is also a wait, exempt or
// supervision tool belongs to that class instead and is never loop-refused.
func WithBlockTools(names ...string) Option {
	return func(c *config) { c.block = toSet(names) }
}

// WithExemptTools replaces the set of exempt tools (default task, task_cancel,
// task_message, task_revive): never counted, annotated or refused; their Before clears the
// session's supervision state. Wait tools take precedence over this set.
func WithExemptTools(names ...string) Option {
	return func(c *config) { c.exempt = toSet(names) }
}

// WithWaitTools replaces the set of wait tools (default wait_for_user,
// wait_for_background_tasks), which share one per-turn counter per session. This set takes
// precedence over all others.
func WithWaitTools(names ...string) Option {
	return func(c *config) { c.wait = toSet(names) }
}

// WithSupervisionTools replaces the set of task-supervision tools (default task_status,
// task_result), which feed the polling stream and are never refused. Wait and exempt tools
// take precedence over this set.
func WithSupervisionTools(names ...string) Option {
	return func(c *config) { c.supervision = toSet(names) }
}

// WithWaitLimits sets the wait guard's thresholds (default 2, 2): the wait notice from the
// warnAt-th completed wait call of a turn, refusal of any wait call once blockAt have
// completed. Both must be at least 1.
func WithWaitLimits(warnAt, blockAt int) Option {
	return func(c *config) { c.waitWarnAt, c.waitBlockAt = warnAt, blockAt }
}

// WithMaxSessions bounds the number of session records (default 512). Creating one more
// evicts the least recently used record, which then starts afresh.
func WithMaxSessions(n int) Option { return func(c *config) { c.maxSessions = n } }

// WithMaxPending bounds the admitted calls awaiting their After in one session (default
// 256). When full, the oldest is dropped and its late After is ignored.
func WithMaxPending(n int) Option { return func(c *config) { c.maxPending = n } }

// WithMaxTasks bounds the task ids supervised in one session (default 64). When full, the
// least recently updated task is dropped.
func WithMaxTasks(n int) Option { return func(c *config) { c.maxTasks = n } }

// WithMaxMessageIDs sets how many distinct user message ids one session remembers
// (default 256). UserMessage with one of them does nothing, so a host that re-delivers the
// messages of a conversation does not reset the streak or the wait counter; an id older
// than the last n distinct ones counts as a new message. Only a 16-byte hash of each id is
// kept.
func WithMaxMessageIDs(n int) Option { return func(c *config) { c.maxMessages = n } }

// WithStreakResetOnUserMessage says whether a distinct external user message resets the
// loop streak (default true). With false, user messages reset only the wait counter and
// the supervision state, as in the reference plugin.
func WithStreakResetOnUserMessage(on bool) Option {
	return func(c *config) { c.resetOnUser = on }
}

// WithNotices overrides markers and notice bodies; zero fields keep their defaults.
func WithNotices(n Notices) Option {
	return func(c *config) {
		set := func(dst *string, v string) {
			if v != "" {
				*dst = v
			}
		}
		set(&c.notices.LoopMarker, n.LoopMarker)
		set(&c.notices.WaitMarker, n.WaitMarker)
		set(&c.notices.Loop, n.Loop)
		set(&c.notices.Supervision, n.Supervision)
		set(&c.notices.Wait, n.Wait)
	}
}

// class is a tool's class, by the class precedence (wait, exempt, supervision, ordinary).
type class uint8

const (
	classOrdinary class = iota
	classWait
	classExempt
	classSupervision
)

// toolKind is what the configuration says about one tool name.
type toolKind struct {
	class class
	block bool // an ordinary tool that may be refused
}

// index builds c.kinds from the sets.
func (c *config) index() {
	c.kinds = make(map[string]toolKind, len(c.block)+len(c.exempt)+len(c.wait)+len(c.supervision))
	for name := range c.block {
		c.kinds[name] = toolKind{class: classOrdinary, block: true}
	}
	// Later assignments win: supervision, then exempt, then wait (the precedence in reverse).
	for _, set := range []struct {
		names map[string]bool
		class class
	}{{c.supervision, classSupervision}, {c.exempt, classExempt}, {c.wait, classWait}} {
		for name := range set.names {
			c.kinds[name] = toolKind{class: set.class}
		}
	}
	c.few = nil
	if len(c.kinds) <= maxFewKinds {
		c.few = make([]namedKind, 0, len(c.kinds))
		for name, k := range c.kinds {
			c.few = append(c.few, namedKind{name, k})
		}
	}
}

// kindOf returns the kind of a lower-cased tool name.
func (c *config) kindOf(tool string) toolKind {
	if c.few != nil {
		for i := range c.few {
			if e := &c.few[i]; len(e.name) == len(tool) && e.name == tool {
				return e.kind
			}
		}
		return toolKind{}
	}
	return c.kinds[tool]
}

// maxFewKinds is the number of named tools up to which kindOf scans a slice instead of
// hashing the name: the default configuration names 11 tools, and comparing lengths
// first rejects most of them without reading a byte.
const maxFewKinds = 16

// namedKind is one entry of config.few.
type namedKind struct {
	name string
	kind toolKind
}
