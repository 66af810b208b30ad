package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/harnesskit/harnesskit/patch"
)

// The apply_patch host hook (edge case 75 of the patch spec). A host whose own apply_patch
// tool is Codex-like (OpenCode, for instance, through a "before tool call" plugin hook) can
// keep that tool and still get harnesskit's locating: before the call runs, the hook plans
// the patch against the workspace and replaces the patch text by the canonical text that the
// host's strict applier applies to the same result (patch.Applier.Rewrite). The wiring lives
// here, in the examples, because it depends on the host's argument shape; the core package
// only rewrites text.
//
// The rules: only the tool named exactly "apply_patch" whose arguments hold a string
// "patchText" is handled; the hook returns a new argument map and never mutates the caller's
// (nor anything inside it); whenever the arguments cannot be replaced — another tool, no
// arguments, no or a non-string patchText, or a patch that Rewrite refuses — the call is left
// untouched and the hook says why, so the host's own tool runs as the model wrote it (and
// reports its own error, if any).

// hookTool is the only tool name the hook handles.
const hookTool = "apply_patch"

// hookPatchField is the argument that holds the patch text.
const hookPatchField = "patchText"

// hookOutcome is the decision for one tool call.
type hookOutcome struct {
	// Args are the arguments to call the tool with: a new map holding the rewritten text when
	// the call was handled, else the caller's own map, unchanged.
	Args map[string]any
	// Handled is true when Args is a new map holding Rewrite's text; Changed is true when
	// that text differs from the caller's.
	Handled, Changed bool
	// Reason says why the call was left untouched ("" when Handled).
	Reason string
}

// rewriteToolCall applies the hook's rules to one tool call: for "apply_patch" with a string
// patchText it runs a.Rewrite and returns a deep copy of args whose patchText is the
// rewritten text; for anything else it returns args itself, untouched, with the reason.
func rewriteToolCall(ctx context.Context, a *patch.Applier, tool string, args map[string]any) hookOutcome {
	untouched := func(format string, v ...any) hookOutcome {
		return hookOutcome{Args: args, Reason: fmt.Sprintf(format, v...)}
	}
	if tool != hookTool {
		return untouched("tool %q is not %s; only %s calls are rewritten", tool, hookTool, hookTool)
	}
	if args == nil {
		return untouched("the %s call has no arguments object to replace", hookTool)
	}
	raw, ok := args[hookPatchField]
	if !ok {
		return untouched("the %s arguments have no %q field", hookTool, hookPatchField)
	}
	text, ok := raw.(string)
	if !ok {
		return untouched("the %s argument %q is %s, not a string", hookTool, hookPatchField, jsonKind(raw))
	}
	rw, err := a.Rewrite(ctx, text)
	if err != nil {
		return untouched("rewrite refused, so the host's own tool sees the patch as written: %v", err)
	}
	if rw.PassedThrough {
		return untouched("the patch names paths outside the workspace (%v); passed through as written", rw.Outside)
	}
	out := deepCopyJSON(args).(map[string]any)
	out[hookPatchField] = rw.Text
	return hookOutcome{Args: out, Handled: true, Changed: rw.Changed}
}

// jsonKind names the JSON type of a decoded value, for the untouched reason.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64, json.Number, int, int64:
		return "a number"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("a %T", v)
}

// deepCopyJSON copies the maps and slices of a decoded JSON value, so that the result shares
// nothing mutable with v; other values (strings, numbers, booleans, nil, and any foreign
// type) are copied as they are.
func deepCopyJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = deepCopyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = deepCopyJSON(e)
		}
		return out
	}
	return v
}

// hookInput is the JSON object the hook verb reads on stdin.
// hookShape describes the hook's input in decoding errors.
var hookShape = jsonShape{noun: "object", example: `{"tool":"apply_patch","args":{"patchText":"*** Begin Patch\n…"}}`, fields: "tool, args"}

type hookInput struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// hookOutput is the JSON object the hook verb writes on stdout.
type hookOutput struct {
	Tool    string `json:"tool"`
	Args    any    `json:"args"`
	Changed bool   `json:"changed"`
	Reason  string `json:"reason,omitempty"`
}

// patchHook is "harnesskit patch hook": one tool call in, the decision out (exit 0 whether
// the call was rewritten or left untouched; 2 for bad flags, unreadable input or a workspace
// that cannot be opened).
func patchHook(ctx context.Context, args []string, std stdio) int {
	const name = "patch hook"
	fs := newFlagSet(std, name)
	var pf patchFlags
	pf.register(fs)
	if code, ok := parseFlags(fs, patchUsage, args, std); !ok {
		return code
	}
	a, closer, code := pf.applier(name, std)
	if code != exitOK {
		return code
	}
	defer closer.Close()
	data, code := readStdin(std, name, "the tool call")
	if code != exitOK {
		return code
	}
	var in hookInput
	if err := decodeStrict(data, &in, hookShape); err != nil {
		fmt.Fprintf(std.err, "harnesskit %s: stdin must hold one JSON object {\"tool\":\"…\",\"args\":{…}}: %v\n", name, err)
		return exitUsage
	}
	out := hookOutput{Tool: in.Tool, Args: in.Args}
	if len(in.Args) == 0 {
		out.Args = nil // "args" absent: echoed as null
	}
	callArgs, decodeErr := decodeArgs(in.Args)
	var o hookOutcome
	if decodeErr != nil && in.Tool == hookTool {
		o = hookOutcome{Reason: fmt.Sprintf("the %s arguments cannot be replaced: %v", hookTool, decodeErr)}
	} else {
		o = rewriteToolCall(ctx, a, in.Tool, callArgs)
	}
	if o.Handled {
		out.Args = o.Args
	}
	out.Changed, out.Reason = o.Changed, o.Reason
	if err := writeJSON(std.out, out); err != nil {
		fmt.Fprintf(std.err, "harnesskit %s: %v\n", name, err)
		return exitUsage
	}
	return exitOK
}

// decodeArgs decodes the arguments of a call as a JSON object, keeping numbers exactly as
// written (json.Number). Absent arguments and null decode to a nil map; any other non-object
// value is an error.
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("they are " + jsonKind(v) + ", not a JSON object")
	}
	return m, nil
}
