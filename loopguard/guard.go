package loopguard

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// Call identifies one tool call. Session and CallID are required: a call without them
// cannot be counted, and Before, Preview and After refuse it with [ErrInvalidCall].
type Call struct {
	Session string          // conversation id, required
	CallID  string          // the host's id for this call, the same at Before and After; required
	Tool    string          // tool name, any case
	Args    json.RawMessage // raw JSON arguments; nil or empty = absent
}

// Output is a tool's result: text, or a structured JSON value.
type Output struct {
	Text  string          // used when Value == nil
	Value json.RawMessage // structured result; counted but never annotated
}

// TextOutput returns a text output.
func TextOutput(s string) Output { return Output{Text: s} }

// ValueOutput returns a structured output. A nil v is taken as the JSON value null.
func ValueOutput(v json.RawMessage) Output {
	if v == nil {
		v = json.RawMessage("null")
	}
	return Output{Value: v}
}

// Stream says which counter a completed call fed.
type Stream uint8

const (
	StreamNone        Stream = iota // untracked: nothing was counted
	StreamLoop                      // the loop streak of ordinary tools
	StreamWait                      // the per-turn wait counter
	StreamSupervision               // the polling stream of one task
)

// String returns "none", "loop", "wait" or "supervision".
func (s Stream) String() string {
	switch s {
	case StreamNone:
		return "none"
	case StreamLoop:
		return "loop"
	case StreamWait:
		return "wait"
	case StreamSupervision:
		return "supervision"
	}
	return "Stream(" + strconv.Itoa(int(s)) + ")"
}

// Verdict is what After decided about a completed call.
type Verdict struct {
	Output Output // the output to hand to the model, possibly with a notice appended
	Notice string // the appended text, "" if none
	Stream Stream // which counter this call fed
	Runs   int    // that counter after this call (0 when untracked)
}

// SessionState is a copy of one session's record, for inspection and tests.
type SessionState struct {
	Runs        int                  // loop streak
	LastTool    string               // tool of the streak's last completed call
	WaitRuns    int                  // completed wait calls this turn
	Supervision map[string]TaskState // task id → last state seen
	Pending     int                  // admitted calls awaiting their After
	LastMessage string               // last distinct user message id seen (its first 256 bytes)
}

// TaskState is the polling stream of one task.
type TaskState struct {
	State string
	Runs  int
}

type pendingCall struct {
	seq     uint64
	class   class
	key     digest
	tool    string
	argTask string
}

type taskEntry struct {
	TaskState
	seq uint64
}

// record is the whole state of one session.
type record struct {
	hasLast     bool
	lastKey     digest
	lastOut     digest
	runs        int
	lastTool    string
	waitRuns    int
	lastMessage string
	messages    messageWindow // the recent distinct user message ids
	tasks       map[string]*taskEntry
	pending     map[string]pendingCall
	seq         uint64 // orders pending entries and task updates
}

// Guard is the loop guard. It is safe for concurrent use: arguments are canonicalised
// and hashed, and outputs hashed and parsed, before its single mutex is taken; the lock
// covers only the state update, so a large output never holds up other sessions.
//
// Parallel calls are counted when they complete: a call admitted by Before is always
// allowed to complete, even if the streak reaches BlockAt meanwhile, and overlapping
// identical calls can never count more than the identical results that actually came back.
//
// Create one with [New]; the zero value is not usable. A Guard starts no goroutines,
// reads no clock and does no I/O.
type Guard struct {
	cfg      config
	mu       sync.Mutex
	sessions *simplelru.LRU[string, *record]
}

// New returns a Guard configured by opts, or an error wrapping [ErrInvalidOption].
func New(opts ...Option) (*Guard, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.index()
	table, err := simplelru.NewLRU[string, *record](cfg.maxSessions, nil)
	if err != nil {
		return nil, err
	}
	return &Guard{cfg: cfg, sessions: table}, nil
}

// checkCall returns an error wrapping [ErrInvalidCall] when c lacks a session or call id.
func checkCall(c Call) error {
	var missing string
	switch {
	case c.Session == "" && c.CallID == "":
		missing = "Session and CallID are"
	case c.Session == "":
		missing = "Session is"
	case c.CallID == "":
		missing = "CallID is"
	default:
		return nil
	}
	return fmt.Errorf("%w: %s empty in the %q call: set Session to the conversation id and CallID to the host's id for the call, the same at Before and After", ErrInvalidCall, missing, c.Tool)
}

// Before decides whether a call may run: nil, or a *[RefusedError] (errors.Is
// [ErrRefused]) whose message is meant for the model. Only block tools (KindLoop) and
// wait tools (KindWait) are ever refused. An admitted call is registered so that its
// After can be counted. A call without a session or call id is not looked at: Before
// returns an error wrapping [ErrInvalidCall].
func (g *Guard) Before(c Call) error {
	if err := checkCall(c); err != nil {
		return err
	}
	ci := g.cfg.describe(c, true)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.before(ci, true)
}

// Preview returns what Before would return for c (nil, a *[RefusedError], or an error
// wrapping [ErrInvalidCall]), recording nothing: no pending entry, no cleared state, and
// the session is not marked as used.
func (g *Guard) Preview(c Call) error {
	if err := checkCall(c); err != nil {
		return err
	}
	ci := g.cfg.describe(c, true)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.before(ci, false)
}

// After counts a completed call and returns the output to hand to the model. It only
// counts a call whose call id Before registered in the same session; anything else (an
// unknown, refused, abandoned or evicted call, an exempt tool, an ended session) returns
// the output unchanged and changes nothing. The class and call key recorded by Before are
// used. The only error is one wrapping [ErrInvalidCall], for a call without a session or
// call id; the Verdict then carries the output unchanged.
func (g *Guard) After(c Call, out Output) (Verdict, error) {
	if err := checkCall(c); err != nil {
		return Verdict{Output: out}, err
	}
	ci := g.cfg.describe(c, false)
	prep := prepareAfter(ci.class, ci.tool, out)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.after(ci, out, prep), nil
}

// AfterText is After for a text output, returning only the text to hand to the model.
func (g *Guard) AfterText(c Call, text string) (string, error) {
	v, err := g.After(c, TextOutput(text))
	return v.Output.Text, err
}

// Abandon drops the pending entry of a call whose After will never come; nothing is
// counted. Unknown sessions and call ids are ignored.
func (g *Guard) Abandon(session, callID string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s, ok := g.sessions.Peek(session); ok {
		delete(s.pending, callID)
	}
}

// UserMessage records a user message. An empty session or message id, or an id among
// the last WithMaxMessageIDs distinct ids of the session (a host re-delivering messages it
// already sent), does nothing. Otherwise the supervision state is cleared, the wait
// counter reset, and — for an external message, unless WithStreakResetOnUserMessage(false)
// — the loop streak reset.
func (g *Guard) UserMessage(session, messageID string, external bool) {
	if session == "" || messageID == "" {
		return
	}
	k := messageKey(messageID)
	g.mu.Lock()
	defer g.mu.Unlock()
	s, ok := g.sessions.Get(session)
	if ok && s.messages.has(k) {
		return
	}
	if !ok {
		s = &record{}
		g.sessions.Add(strings.Clone(session), s)
	}
	s.messages.add(k, g.cfg.maxMessages)
	s.lastMessage = keep(messageID)
	clear(s.tasks)
	s.waitRuns = 0
	if external && g.cfg.resetOnUser {
		s.resetStreak()
	}
}

// EndTurn clears the supervision state and the wait counter; the loop streak is kept.
// An unknown session is ignored.
func (g *Guard) EndTurn(session string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s, ok := g.sessions.Get(session); ok {
		clear(s.tasks)
		s.waitRuns = 0
	}
}

// EndSession drops the session's whole record, pending calls included.
func (g *Guard) EndSession(session string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.sessions.Remove(session)
}

// State returns a copy of the session's record, and whether there is one. It does not
// mark the session as used.
func (g *Guard) State(session string) (SessionState, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s, ok := g.sessions.Peek(session)
	if !ok {
		return SessionState{}, false
	}
	st := SessionState{Runs: s.runs, LastTool: s.lastTool, WaitRuns: s.waitRuns, Pending: len(s.pending), LastMessage: s.lastMessage}
	if len(s.tasks) > 0 {
		st.Supervision = make(map[string]TaskState, len(s.tasks))
		for id, t := range s.tasks {
			st.Supervision[id] = t.TaskState
		}
	}
	return st, true
}

// Len returns the number of session records.
func (g *Guard) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sessions.Len()
}

func (s *record) resetStreak() {
	s.hasLast = false
	s.lastKey, s.lastOut = digest{}, digest{}
	s.runs = 0
	s.lastTool = ""
}

// before is Before (commit=true) or Preview (commit=false) on a described call, with
// the lock held.
func (g *Guard) before(ci callInfo, commit bool) error {
	var s *record
	var ok bool
	if commit {
		s, ok = g.sessions.Get(ci.session)
	} else {
		s, ok = g.sessions.Peek(ci.session)
	}
	if ci.class != classSupervision && ok && commit {
		clear(s.tasks) // every non-supervision call ends a polling stream
	}
	switch ci.class {
	case classExempt:
		return nil
	case classWait:
		if ok && s.waitRuns >= g.cfg.waitBlockAt {
			return &RefusedError{Kind: KindWait, Session: ci.session, Tool: ci.tool, Runs: s.waitRuns}
		}
	case classOrdinary:
		if ok && ci.block && s.hasLast && s.lastKey == ci.key && s.runs >= g.cfg.blockAt {
			return &RefusedError{Kind: KindLoop, Session: ci.session, Tool: ci.tool, Runs: s.runs}
		}
	}
	if !commit {
		return nil
	}
	if !ok {
		s = &record{}
		g.sessions.Add(strings.Clone(ci.session), s)
	}
	s.register(ci, g.cfg.maxPending)
	return nil
}

func (s *record) register(ci callInfo, max int) {
	if s.pending == nil {
		s.pending = make(map[string]pendingCall)
	}
	if _, dup := s.pending[ci.callID]; !dup && len(s.pending) >= max {
		evictOldest(s.pending, func(p pendingCall) uint64 { return p.seq })
	}
	s.seq++
	s.pending[strings.Clone(ci.callID)] = pendingCall{seq: s.seq, class: ci.class, key: ci.key, tool: strings.Clone(ci.tool), argTask: ci.argTask}
}

// afterPrep is the part of After computed before taking the lock: hashing and parsing.
type afterPrep struct {
	class       class  // the class the output was prepared for
	tool        string // the lower-cased tool it was prepared for
	outKey      digest
	task, state string // copies, cut to maxKept bytes
}

// prepareAfter reads the output of a call of the given class and tool.
func prepareAfter(cl class, tool string, out Output) afterPrep {
	p := afterPrep{class: cl, tool: tool}
	switch cl {
	case classOrdinary:
		p.outKey = outputKey(tool, out)
	case classSupervision:
		id, state := readStatus(outputText(out))
		p.task, p.state = keep(id), keep(state)
	}
	return p
}

// after is After on a described and prepared call, with the lock held.
func (g *Guard) after(ci callInfo, out Output, prep afterPrep) Verdict {
	v := Verdict{Output: out}
	if ci.class == classExempt {
		return v
	}
	s, ok := g.sessions.Get(ci.session)
	if !ok {
		return v
	}
	p, ok := s.pending[ci.callID]
	if !ok {
		return v
	}
	delete(s.pending, ci.callID)
	if prep.class != p.class || prep.tool != p.tool {
		// The host named another tool in After than in Before: the class recorded at
		// Before wins, and the output is read for that class now (under the lock, but
		// only for a host that mislabels its calls).
		prep = prepareAfter(p.class, p.tool, out)
	}
	n := &g.cfg.notices
	switch p.class {
	case classWait:
		s.waitRuns++
		v.Stream, v.Runs = StreamWait, s.waitRuns
		if s.waitRuns >= g.cfg.waitWarnAt {
			v.annotate(n.WaitMarker, n.Wait, p.tool, s.waitRuns, "", "")
		}
	case classSupervision:
		id := prep.task
		if id == "" {
			id = p.argTask
		}
		if id == "" || prep.state == "" {
			return v
		}
		t := s.task(id, g.cfg.maxTasks)
		if t.State == prep.state {
			t.Runs++
		} else {
			t.State, t.Runs = prep.state, 1
		}
		v.Stream, v.Runs = StreamSupervision, t.Runs
		if t.Runs >= g.cfg.warnAt {
			v.annotate(n.LoopMarker, n.Supervision, p.tool, t.Runs, id, t.State)
		}
	case classOrdinary:
		if s.hasLast && s.lastKey == p.key && s.lastOut == prep.outKey {
			s.runs++
		} else {
			s.runs = 1
		}
		s.hasLast, s.lastKey, s.lastOut, s.lastTool = true, p.key, prep.outKey, p.tool
		v.Stream, v.Runs = StreamLoop, s.runs
		if s.runs >= g.cfg.warnAt {
			v.annotate(n.LoopMarker, n.Loop, p.tool, s.runs, "", "")
		}
	}
	return v
}

// task returns the entry of task id (a copy the guard may keep), creating it (and
// dropping the least recently updated task when the session is at max) if needed, and
// marks it updated.
func (s *record) task(id string, max int) *taskEntry {
	if s.tasks == nil {
		s.tasks = make(map[string]*taskEntry)
	}
	t, ok := s.tasks[id]
	if !ok {
		if len(s.tasks) >= max {
			evictOldest(s.tasks, func(e *taskEntry) uint64 { return e.seq })
		}
		t = &taskEntry{}
		s.tasks[id] = t
	}
	s.seq++
	t.seq = s.seq
	return t
}

// annotate appends the notice "\n\n" + marker + "\n\n" + body + "\n" to a text output that
// does not already contain the marker, filling in the body's placeholders.
func (v *Verdict) annotate(marker, body, tool string, runs int, id, state string) {
	if v.Output.Value != nil || strings.Contains(v.Output.Text, marker) {
		return
	}
	r := strings.NewReplacer("<tool>", tool, "<N>", strconv.Itoa(runs), "<id>", id, "<state>", state)
	notice := "\n\n" + marker + "\n\n" + r.Replace(body) + "\n"
	v.Notice = notice
	v.Output.Text += notice
}

// evictOldest deletes the entry of m with the lowest sequence number. It scans the map:
// the maps it serves are capped small, so a scan costs less than keeping an order.
func evictOldest[V any](m map[string]V, seq func(V) uint64) {
	oldest, first := "", true
	var lowest uint64
	for k, v := range m {
		if n := seq(v); first || n < lowest {
			oldest, lowest, first = k, n, false
		}
	}
	delete(m, oldest)
}
