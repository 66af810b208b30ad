package realhosts_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// anthropicModel is a scripted model behind the Anthropic Messages API (POST /v1/messages,
// streamed or not; /v1/messages/count_tokens), as Claude Code and OpenCode's anthropic
// provider call it. A request that declares the harnesskit tools is the turn; any other
// (a title, a summary) gets a short text answer.
func anthropicModel(tr *turn) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch {
		case strings.HasSuffix(r.URL.Path, "/messages/count_tokens"):
			fmt.Fprint(w, `{"input_tokens":100}`)
			return
		case !strings.HasSuffix(r.URL.Path, "/messages"):
			tr.problem("unexpected request %s %s", r.Method, r.URL)
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Stream   bool   `json:"stream"`
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			tr.problem("undecodable request: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var declared []string
		for _, t := range req.Tools {
			declared = append(declared, t.Name)
		}
		if _, ok := toolName(declared, "apply_patch"); !ok {
			if len(declared) > 0 {
				tr.problem("a request with tools but not harnesskit's: %v", declared)
			}
			tr.sideRequest()
			anthropicReply(w, req.Model, req.Stream, "Harnesskit turn", nil)
			return
		}
		// The tool results handed back so far, in order, for the calls this model made.
		var results []toolResult
		for _, m := range req.Messages {
			var blocks []struct {
				Type      string          `json:"type"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
				IsError   bool            `json:"is_error"`
			}
			if json.Unmarshal(m.Content, &blocks) != nil {
				continue // a plain string
			}
			for _, b := range blocks {
				if b.Type == "tool_result" && strings.HasPrefix(b.ToolUseID, "toolu_hk_") {
					results = append(results, toolResult{Text: textOf(b.Content), IsError: b.IsError})
				}
			}
		}
		s := tr.next(results)
		if s == nil {
			anthropicReply(w, req.Model, req.Stream, finalAnswer, nil)
			return
		}
		name, ok := toolName(declared, s.tool)
		if !ok {
			tr.problem("the host did not declare %s (tools: %v)", s.tool, declared)
			anthropicReply(w, req.Model, req.Stream, "missing tool "+s.tool, nil)
			return
		}
		anthropicReply(w, req.Model, req.Stream, "", &toolUse{ID: fmt.Sprintf("toolu_hk_%d", len(results)), Name: name, Input: s.args})
	})
}

type toolUse struct {
	ID    string
	Name  string
	Input map[string]any
}

// anthropicReply answers with text, or with one tool call, as a stream of server-sent
// events or as one JSON message.
func anthropicReply(w http.ResponseWriter, model string, stream bool, text string, call *toolUse) {
	block := map[string]any{"type": "text", "text": text}
	stop := "end_turn"
	if call != nil {
		block = map[string]any{"type": "tool_use", "id": call.ID, "name": call.Name, "input": call.Input}
		stop = "tool_use"
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 20}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, mustJSON(map[string]any{"id": "msg_hk", "type": "message", "role": "assistant", "model": model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage}))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(name string, v map[string]any) {
		v["type"] = name
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, mustJSON(v))
	}
	event("message_start", map[string]any{"message": map[string]any{"id": "msg_hk", "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 100, "output_tokens": 1}}})
	if call != nil {
		event("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "tool_use", "id": call.ID, "name": call.Name, "input": map[string]any{}}})
		event("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": mustJSON(call.Input)}})
	} else {
		event("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		event("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": text}})
	}
	event("content_block_stop", map[string]any{"index": 0})
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	event("message_stop", map[string]any{})
}

// textOf flattens a tool result's content (a string, or blocks with text) to text.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			if t, ok := x["text"]; ok {
				walk(t)
			} else if c, ok := x["content"]; ok {
				walk(c)
			}
		}
	}
	walk(v)
	return b.String()
}
