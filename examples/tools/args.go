package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// argSpec is a tool's argument struct seen three ways: its JSON Schema (generated from
// the struct's json and jsonschema tags), the resolved schema that validates a call, and
// a decoder into a fresh struct.
type argSpec struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	decodeTo func(data []byte) (any, error)
}

// makeTool builds a Tool whose arguments are the struct In. adjust, when not nil, may
// refine the generated schema (enums, minimums) before it is resolved.
func makeTool[In any](name, description string, ann Annotations, adjust func(*jsonschema.Schema),
	run func(ctx context.Context, w *workspace, in *In, p Progress) (string, error)) (*Tool, error) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, fmt.Errorf("tools: %s: schema: %w", name, err)
	}
	// Hosts add arguments of their own to every tool (Gemini CLI's wait_for_previous) and
	// send them; the schema does not forbid them and decode ignores them.
	s.AdditionalProperties = nil
	if adjust != nil {
		adjust(s)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("tools: %s: schema: %w", name, err)
	}
	spec := &argSpec{schema: s, resolved: r, decodeTo: func(data []byte) (any, error) {
		in := new(In)
		return in, json.Unmarshal(data, in)
	}}
	return &Tool{
		Name: name, Description: description, Annotations: ann, args: spec,
		run: func(ctx context.Context, w *workspace, in any, p Progress) (string, error) {
			return run(ctx, w, in.(*In), p)
		},
	}, nil
}

// decode validates raw against the schema and decodes it. Every failure is an
// ErrInvalidArgs error whose message names the problem and lists the expected arguments.
func (a *argSpec) decode(tool string, raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, a.invalid(tool, "the arguments are not valid JSON ("+err.Error()+")")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, a.invalid(tool, "the arguments must be a JSON object")
	}
	if err := a.misspelt(tool, obj); err != nil {
		return nil, err
	}
	// The validator words a minimum as "minimum: 0/1 is less than 1.000000"; say it plainly.
	for _, name := range a.schema.PropertyOrder {
		p := a.schema.Properties[name]
		if n, ok := obj[name].(float64); ok && p != nil && p.Minimum != nil && n < *p.Minimum {
			return nil, a.invalid(tool, fmt.Sprintf("%s must be at least %g, got %g", name, *p.Minimum, n))
		}
	}
	if err := a.resolved.Validate(v); err != nil {
		return nil, a.invalid(tool, cleanValidation(err.Error()))
	}
	// Decode what was validated, re-encoded: the schema counts 2.0 and 2e0 as integers,
	// which encoding/json refuses for an int field unless written 2.
	canon, err := json.Marshal(v)
	if err != nil {
		return nil, a.invalid(tool, err.Error())
	}
	in, err := a.decodeTo(canon)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" { // the schema checked the type: out of range
		return nil, a.invalid(tool, fmt.Sprintf("%s is too large (%s)", te.Field, te.Value))
	}
	if err != nil {
		return nil, a.invalid(tool, err.Error())
	}
	return in, nil
}

// misspelt refuses an unknown argument whose name is a known one written differently:
// another case, with or without underscores or dashes, or with or without a final "s"
// (filePath for file_path, path for paths). Such a call would otherwise run with the
// argument silently missing. Any other unknown argument is ignored.
func (a *argSpec) misspelt(tool string, obj map[string]any) error {
	norm := func(s string) string {
		s = strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
		return strings.TrimSuffix(s, "s")
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if _, known := a.schema.Properties[k]; known {
			continue
		}
		for _, name := range a.schema.PropertyOrder {
			if norm(name) == norm(k) {
				return a.invalid(tool, fmt.Sprintf("unknown argument %q; did you mean %q?", k, name))
			}
		}
	}
	return nil
}

func (a *argSpec) invalid(tool, problem string) error {
	return &argError{msg: fmt.Sprintf("%s: invalid arguments: %s. Expected a JSON object with %s.", tool, problem, a.summary())}
}

// summary lists the properties: "pattern (string, required), path (string)".
func (a *argSpec) summary() string {
	req := map[string]bool{}
	for _, r := range a.schema.Required {
		req[r] = true
	}
	var parts []string
	for _, name := range a.schema.PropertyOrder {
		p := a.schema.Properties[name]
		if p == nil {
			continue
		}
		typ := p.Type
		if typ == "" && len(p.Types) > 0 {
			typ = strings.Join(p.Types, " or ")
		}
		s := name + " (" + typ
		if req[name] {
			s += ", required"
		}
		parts = append(parts, s+")")
	}
	if len(parts) == 0 {
		return "no properties"
	}
	return strings.Join(parts, ", ")
}

// cleanValidation shortens the validator's message to the part a model needs.
func cleanValidation(msg string) string {
	msg = strings.TrimPrefix(msg, "validating root: ")
	msg = strings.ReplaceAll(msg, "validating /properties/", "")
	return strings.TrimSuffix(msg, ".")
}

// argError is the cause of an ErrInvalidArgs tool error.
type argError struct{ msg string }

func (e *argError) Error() string        { return e.msg }
func (e *argError) Is(target error) bool { return target == ErrInvalidArgs }

// invalidf returns an ErrInvalidArgs error with a formatted message.
func invalidf(format string, args ...any) error {
	return &argError{msg: fmt.Sprintf(format, args...)}
}
