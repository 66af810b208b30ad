package realhosts_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
)

// geminiModel is a scripted model behind the Gemini API (POST
// /v1beta/models/MODEL:generateContent, :streamGenerateContent?alt=sse, :countTokens), as
// Gemini CLI calls it. The request that declares the harnesskit tools is the turn; the
// CLI's side requests (model routing, next-speaker checks) ask for JSON of a schema, which
// gets a value of that schema, and anything else a short text.
func geminiModel(tr *turn) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, method, _ := strings.Cut(r.URL.Path, ":")
		if method == "countTokens" {
			fmt.Fprint(w, `{"totalTokens":100}`)
			return
		}
		if method != "generateContent" && method != "streamGenerateContent" {
			tr.problem("unexpected request %s %s", r.Method, r.URL)
			http.NotFound(w, r)
			return
		}
		stream := method == "streamGenerateContent"
		var req struct {
			Contents []struct {
				Role  string `json:"role"`
				Parts []struct {
					FunctionResponse *struct {
						Name     string          `json:"name"`
						Response json.RawMessage `json:"response"`
					} `json:"functionResponse"`
				} `json:"parts"`
			} `json:"contents"`
			Tools []struct {
				FunctionDeclarations []struct {
					Name string `json:"name"`
				} `json:"functionDeclarations"`
			} `json:"tools"`
			GenerationConfig struct {
				ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
				ResponseSchema     map[string]any `json:"responseSchema"`
			} `json:"generationConfig"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			tr.problem("undecodable request: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var declared []string
		for _, t := range req.Tools {
			for _, f := range t.FunctionDeclarations {
				declared = append(declared, f.Name)
			}
		}
		if _, ok := toolName(declared, "apply_patch"); !ok {
			tr.sideRequest()
			schema := req.GenerationConfig.ResponseJSONSchema
			if schema == nil {
				schema = req.GenerationConfig.ResponseSchema
			}
			text := "OK."
			if schema != nil {
				text = mustJSON(schemaValue(schema))
			}
			geminiReply(w, stream, map[string]any{"text": text})
			return
		}
		var results []toolResult
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if f := p.FunctionResponse; f != nil && strings.Contains(f.Name, "harnesskit") {
					var resp map[string]any
					json.Unmarshal(f.Response, &resp)
					_, isErr := resp["error"]
					results = append(results, toolResult{Text: flatten(resp), IsError: isErr})
				}
			}
		}
		s := tr.next(results)
		if s == nil {
			geminiReply(w, stream, map[string]any{"text": finalAnswer})
			return
		}
		name, ok := toolName(declared, s.tool)
		if !ok {
			tr.problem("the host did not declare %s (tools: %v)", s.tool, declared)
			geminiReply(w, stream, map[string]any{"text": "missing tool " + s.tool})
			return
		}
		geminiReply(w, stream, map[string]any{"functionCall": map[string]any{"name": name, "args": s.args}})
	})
}

// geminiReply answers with one part, as one server-sent event or as one JSON object.
func geminiReply(w http.ResponseWriter, stream bool, part map[string]any) {
	resp := mustJSON(map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120},
		"modelVersion":  "harnesskit-fake",
	})
	if stream {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\r\n\r\n", resp)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, resp)
}

// schemaValue returns a value of a JSON schema (OpenAPI-style upper-case types too): the
// first enum value, or a string, 1, false, an empty array, an object with every property.
func schemaValue(s map[string]any) any {
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	switch strings.ToLower(fmt.Sprint(s["type"])) {
	case "object":
		props, _ := s["properties"].(map[string]any)
		out := map[string]any{}
		for k, v := range props {
			if ps, ok := v.(map[string]any); ok {
				out[k] = schemaValue(ps)
			}
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		return 1
	case "boolean":
		return false
	default:
		return "user" // a next speaker, a reason: any string fits
	}
}

// flatten joins every string in a decoded JSON value, keys sorted, so a result's text is
// found wherever the host put it.
func flatten(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x + "\n")
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k])
			}
		}
	}
	walk(v)
	return b.String()
}
