package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/harnesskit/harnesskit/loopguard"
)

const loopguardUsage = `usage: harnesskit loopguard replay [-warn-at N] [-block-at N] [-keep-streak] < events.jsonl

Replays a recorded sequence of tool-call events through one loop guard and prints what the
guard decided, one JSON line per event, in order.

Input: JSON lines, one event each.
  {"phase":"before","session":"s1","call":"c1","tool":"read","args":{"filePath":"a.ts"}}
  {"phase":"after","session":"s1","call":"c1","tool":"read","args":{…},"output":"…"}
  {"phase":"user_message","session":"s1","message":"m1"}      (add "external":false for a
                                                              message the host generated)
  {"phase":"end_turn","session":"s1"}
  {"phase":"end_session","session":"s1"}
  {"phase":"abandon","session":"s1","call":"c1"}
"session" and "call" are required in before and after events: a call without them could
never be counted, so the replay stops there with exit 2. "args" is any JSON value (omit it
for a call without arguments). "output" is a string, or any other JSON value for a
structured result (counted, never annotated). A line may hold at most 16 MiB.

Output: one line per event, {"action":"none|refused|appended","message":"…","appended":"…"}.
  action "none"       allowed, nothing appended ("message" and "appended" are "")
  action "refused"    before: do not run the call; "message" is the refusal to give the model
  action "appended"   after: "appended" is the notice appended to the output

Flags:
  -warn-at N      notices from the Nth identical result on (default 3)
  -block-at N     refuse read/grep/glob after N identical results (default 5)
  -keep-streak    a user message does not reset the loop streak (the plugin's behaviour)

Exit codes: 0 all events replayed (refusals included); 2 bad input or flags (stderr says
which line and what was expected).
`

func loopguardCommand() command {
	return command{
		name:    "loopguard",
		summary: "replay tool-call events through the repeated-call guard",
		usage:   loopguardUsage,
		verbs:   []verb{{name: "replay", run: loopguardReplay}},
	}
}

// loopguardEvent is one input line.
type loopguardEvent struct {
	Phase    string          `json:"phase"`
	Session  string          `json:"session"`
	Call     string          `json:"call,omitempty"`
	Tool     string          `json:"tool,omitempty"`
	Args     json.RawMessage `json:"args,omitempty"`
	Output   json.RawMessage `json:"output,omitempty"`
	Message  string          `json:"message,omitempty"`
	External *bool           `json:"external,omitempty"`
}

// loopguardResult is one output line.
type loopguardResult struct {
	Action   string `json:"action"`   // none, refused or appended
	Message  string `json:"message"`  // the refusal message; "" unless refused
	Appended string `json:"appended"` // the notice appended to the output; "" unless appended
}

func loopguardReplay(ctx context.Context, args []string, std stdio) int {
	fs := newFlagSet(std, "loopguard replay")
	warnAt := fs.Int("warn-at", loopguard.DefaultWarnAt, "notices from the Nth identical result on")
	blockAt := fs.Int("block-at", loopguard.DefaultBlockAt, "refuse block tools after N identical results")
	keep := fs.Bool("keep-streak", false, "user messages do not reset the loop streak")
	if code, ok := parseFlags(fs, loopguardUsage, args, std); !ok {
		return code
	}
	g, err := loopguard.New(loopguard.WithWarnAt(*warnAt), loopguard.WithBlockAt(*blockAt), loopguard.WithStreakResetOnUserMessage(!*keep))
	if err != nil {
		usageError(std, "loopguard replay", "%v", err)
		return exitUsage
	}
	err = eachLine(ctx, std.in, func(n int, line []byte) error {
		ev, err := loopguardDecode(n, line)
		if err != nil {
			return err
		}
		res, err := loopguardApply(g, ev)
		if err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
		return writeJSON(std.out, res)
	})
	if err != nil {
		fmt.Fprintf(std.err, "harnesskit loopguard replay: %v\n", err)
		return exitUsage
	}
	return exitOK
}

var errLoopguardPhase = errors.New(`unknown "phase": use before, after, user_message, end_turn, end_session or abandon`)

// loopguardApply feeds one event to the guard.
func loopguardApply(g *loopguard.Guard, ev loopguardEvent) (loopguardResult, error) {
	call := loopguard.Call{Session: ev.Session, CallID: ev.Call, Tool: ev.Tool, Args: ev.Args}
	none := loopguardResult{Action: "none"}
	switch ev.Phase {
	case "before":
		if ev.Tool == "" {
			return none, errors.New(`a "before" event needs "tool"`)
		}
		switch err := g.Before(call); {
		case errors.Is(err, loopguard.ErrRefused):
			return loopguardResult{Action: "refused", Message: err.Error()}, nil
		case err != nil:
			return none, loopguardCallError(ev, err)
		}
		return none, nil
	case "after":
		if ev.Tool == "" {
			return none, errors.New(`an "after" event needs "tool"`)
		}
		out, err := loopguardOutput(ev.Output)
		if err != nil {
			return none, err
		}
		v, err := g.After(call, out)
		if err != nil {
			return none, loopguardCallError(ev, err)
		}
		if v.Notice != "" {
			return loopguardResult{Action: "appended", Appended: v.Notice}, nil
		}
		return none, nil
	case "user_message":
		if ev.Message == "" {
			return none, errors.New(`a "user_message" event needs "message" (the message id)`)
		}
		g.UserMessage(ev.Session, ev.Message, ev.External == nil || *ev.External)
		return none, nil
	case "end_turn":
		g.EndTurn(ev.Session)
		return none, nil
	case "end_session":
		g.EndSession(ev.Session)
		return none, nil
	case "abandon":
		g.Abandon(ev.Session, ev.Call)
		return none, nil
	}
	return none, fmt.Errorf("%w (got %q)", errLoopguardPhase, ev.Phase)
}

// loopguardCallError explains a call the guard cannot count (loopguard.ErrInvalidCall).
func loopguardCallError(ev loopguardEvent, err error) error {
	if errors.Is(err, loopguard.ErrInvalidCall) {
		return fmt.Errorf(`%q events need a non-empty "session" (the conversation) and "call" (the call id, the same in its before and after events); got session %q, call %q`, ev.Phase, ev.Session, ev.Call)
	}
	return err
}

// loopguardEventShape describes an event line in decoding errors.
var loopguardEventShape = jsonShape{
	noun:    "event object",
	example: `{"phase":"before","session":"s1","call":"c1","tool":"read"}`,
	fields:  "phase, session, call, tool, args, output, message, external",
	unit:    "line",
}

// loopguardDecode reads one event line (line n of the input). Its errors say where the
// line is wrong (line and column, counted in characters from 1) and what was expected
// there, instead of the JSON decoder's own wording.
func loopguardDecode(n int, line []byte) (loopguardEvent, error) {
	var ev loopguardEvent
	if err := decodeStrict(line, &ev, loopguardEventShape); err != nil {
		return ev, fmt.Errorf("line %d, %w", n, err)
	}
	return ev, nil
}

// loopguardOutput reads "output": a JSON string is a text output, any other value a
// structured one, and an absent output the empty text.
func loopguardOutput(raw json.RawMessage) (loopguard.Output, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return loopguard.TextOutput(""), nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return loopguard.Output{}, fmt.Errorf(`"output": %v`, err)
		}
		return loopguard.TextOutput(s), nil
	}
	return loopguard.ValueOutput(raw), nil
}
