package loopguard

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// Call identifies one tool call.
type Call struct {
	Session string          // conversation id; "" = untracked
	CallID  string          // the host's id for this call; "" = never counted
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
	LastMessage string               // last user message id seen
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

// record is the whole per-session state (spec L24).
type record struct {
	hasLast     bool
	lastKey     digest
	lastOut     digest
	runs        int
	lastTool    string
	waitRuns    int
	lastMessage string
	tasks       map[string]*taskEntry
	pending     map[string]pendingCall
	seq         uint64 // orders pending entries and task updates
}

// Core is the guard's state machine without a lock: the type to drive from a single
// goroutine (a host event loop, a test, the CLI replay). Its methods have the same meaning
// as [Guard]'s. It starts no goroutines, reads no clock and does no I/O. Create one with
// [NewCore]; the zero value is not usable.
type Core struct {
	cfg      config
	sessions *simplelru.LRU[string, *record]
	sc       scratch // buffers for fingerprinting (Core is single-threaded)
}

// NewCore returns a Core configured by opts, or an error wrapping [ErrInvalidOption].
func NewCore(opts ...Option) (*Core, error) {
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
	return &Core{cfg: cfg, sessions: table}, nil
}

// Before decides whether a call may run: nil, or a *[RefusedError] (errors.Is
// [ErrRefused]) whose message is meant for the model. Only block tools (KindLoop) and wait
// tools (KindWait) are ever refused. An admitted call with a call id is registered so its
// After can be counted.
func (g *Core) Before(c Call) error {
	ci := g.cfg.describe(c, &g.sc, true)
	g.sc.trim()
	return g.before(ci, true)
}

// Preview returns what Before would return for c (nil or a *[RefusedError]), recording
// nothing: no pending entry, no cleared state, and the session is not marked as used.
func (g *Core) Preview(c Call) error {
	ci := g.cfg.describe(c, &g.sc, true)
	g.sc.trim()
	return g.before(ci, false)
}

// After counts a completed call and returns the output to hand to the model. It only
// counts a call whose call id Before registered in the same session; anything else (no
// call id, an unknown, refused, abandoned or evicted call, an exempt tool, an ended
// session) returns the output unchanged and changes nothing. The class and call key
// recorded by Before are used. After never fails.
func (g *Core) After(c Call, out Output) Verdict {
	ci := g.cfg.describe(c, &g.sc, false)
	prep := prepareAfter(ci, out, &g.sc)
	g.sc.trim()
	return g.after(ci, out, prep)
}

// AfterText is After for a text output, returning only the text to hand to the model.
func (g *Core) AfterText(c Call, text string) string {
	return g.After(c, TextOutput(text)).Output.Text
}

// Abandon drops the pending entry of a call whose After will never come; nothing is counted.
func (g *Core) Abandon(session, callID string) {
	if s, ok := g.sessions.Peek(session); ok {
		delete(s.pending, callID)
	}
}

// UserMessage records a user message. An empty id, or the id last recorded for the
// session, does nothing. Otherwise the supervision state is cleared, the wait counter
// reset, and — for an external message, unless WithStreakResetOnUserMessage(false) — the
// loop streak reset.
func (g *Core) UserMessage(session, messageID string, external bool) {
	if session == "" || messageID == "" {
		return
	}
	s, ok := g.sessions.Get(session)
	if ok && s.lastMessage == messageID {
		return
	}
	if !ok {
		s = &record{}
		g.sessions.Add(session, s)
	}
	s.lastMessage = messageID
	clear(s.tasks)
	s.waitRuns = 0
	if external && g.cfg.resetOnUser {
		s.resetStreak()
	}
}

// EndTurn clears the supervision state and the wait counter; the loop streak is kept.
func (g *Core) EndTurn(session string) {
	if s, ok := g.sessions.Get(session); ok {
		clear(s.tasks)
		s.waitRuns = 0
	}
}

// EndSession drops the session's whole record, pending calls included.
func (g *Core) EndSession(session string) { g.sessions.Remove(session) }

// State returns a copy of the session's record, and whether there is one. It does not
// mark the session as used.
func (g *Core) State(session string) (SessionState, bool) {
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
func (g *Core) Len() int { return g.sessions.Len() }

func (s *record) resetStreak() {
	s.hasLast = false
	s.lastKey, s.lastOut = digest{}, digest{}
	s.runs = 0
	s.lastTool = ""
}

// before is Before (commit=true) or Preview (commit=false) on a described call.
func (g *Core) before(ci callInfo, commit bool) error {
	if ci.session == "" {
		return nil
	}
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
	if !commit || ci.callID == "" {
		return nil
	}
	if !ok {
		s = &record{}
		g.sessions.Add(ci.session, s)
	}
	s.register(ci, g.cfg.maxPending)
	return nil
}

func (s *record) register(ci callInfo, max int) {
	if s.pending == nil {
		s.pending = make(map[string]pendingCall)
	}
	if len(s.pending) >= max {
		// Full: drop the oldest entry, unless this id is pending already and is only
		// replaced (looked up only when full, to keep the common path to one map write).
		if _, dup := s.pending[ci.callID]; !dup {
			oldest, first := "", true
			var min uint64
			for id, p := range s.pending {
				if first || p.seq < min {
					oldest, min, first = id, p.seq, false
				}
			}
			delete(s.pending, oldest)
		}
	}
	s.seq++
	s.pending[ci.callID] = pendingCall{seq: s.seq, class: ci.class, key: ci.key, tool: ci.tool, argTask: ci.argTask}
}

// afterPrep is the part of After computed before taking a lock: hashing and parsing.
type afterPrep struct {
	class       class  // the class the output was prepared for
	tool        string // the lower-cased tool it was prepared for
	outKey      digest
	task, state string
}

// prepareAfter reads the output of a call described (without its key) by ci.
func prepareAfter(ci callInfo, out Output, sc *scratch) afterPrep {
	if ci.session == "" || ci.callID == "" {
		return afterPrep{class: classExempt}
	}
	p := afterPrep{class: ci.class, tool: ci.tool}
	switch p.class {
	case classOrdinary:
		p.outKey = sc.outputKey(ci.tool, out)
	case classSupervision:
		text := outputText(out)
		p.task, p.state = parseTaskID(text), parseTaskState(text)
	}
	return p
}

func (g *Core) after(ci callInfo, out Output, prep afterPrep) Verdict {
	v := Verdict{Output: out}
	if ci.session == "" || ci.callID == "" || ci.class == classExempt {
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
		// Before wins, and the output is read for that class now.
		prep = prepareAfter(callInfo{session: ci.session, callID: ci.callID, tool: p.tool, class: p.class}, out, &g.sc)
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

// task returns the entry of task id, creating it (and dropping the least recently
// updated task when the session is at max) if needed, and marks it updated. A new id is
// copied, so that a slice of a large output is never kept.
func (s *record) task(id string, max int) *taskEntry {
	if s.tasks == nil {
		s.tasks = make(map[string]*taskEntry)
	}
	t, ok := s.tasks[id]
	if !ok {
		if len(s.tasks) >= max {
			oldest, first := "", true
			var min uint64
			for k, e := range s.tasks {
				if first || e.seq < min {
					oldest, min, first = k, e.seq, false
				}
			}
			delete(s.tasks, oldest)
		}
		t = &taskEntry{}
		s.tasks[strings.Clone(id)] = t
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
	var b strings.Builder
	b.Grow(len(v.Output.Text) + len(marker) + len(body) + len(tool) + len(id) + len(state) + 32)
	b.WriteString(v.Output.Text)
	b.WriteString("\n\n")
	b.WriteString(marker)
	b.WriteString("\n\n")
	for body != "" {
		i := strings.IndexByte(body, '<')
		if i < 0 {
			b.WriteString(body)
			break
		}
		b.WriteString(body[:i])
		body = body[i:]
		switch {
		case strings.HasPrefix(body, "<tool>"):
			b.WriteString(tool)
			body = body[len("<tool>"):]
		case strings.HasPrefix(body, "<N>"):
			var num [20]byte
			b.Write(strconv.AppendInt(num[:0], int64(runs), 10))
			body = body[len("<N>"):]
		case strings.HasPrefix(body, "<id>"):
			b.WriteString(id)
			body = body[len("<id>"):]
		case strings.HasPrefix(body, "<state>"):
			b.WriteString(state)
			body = body[len("<state>"):]
		default:
			b.WriteByte('<')
			body = body[1:]
		}
	}
	b.WriteByte('\n')
	text := b.String()
	v.Notice = text[len(v.Output.Text):]
	v.Output.Text = text
}
