package tools_test

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/harnesskit/harnesskit/webfetch"
)

// stubSummarizer answers, fails, or blocks until its context ends.
type stubSummarizer struct {
	answer string
	err    error
	block  bool
}

func (s *stubSummarizer) Summarize(ctx context.Context, _ webfetch.SummaryRequest) (webfetch.Summary, error) {
	if s.block {
		<-ctx.Done()
		return webfetch.Summary{}, ctx.Err()
	}
	return webfetch.Summary{Text: s.answer}, s.err
}

func TestChainSummarizers(t *testing.T) {
	ref := func(m string) tools.ModelRef { return tools.ModelRef{Provider: "a", Model: m} }
	tests := []struct {
		name    string
		timeout time.Duration
		first   webfetch.Summarizer
		want    string
		model   string
	}{
		{name: "E26_blank_answer_moves_on", first: &stubSummarizer{answer: "  "}, want: "second", model: "a/2"},
		{name: "E27_error_moves_on", first: &stubSummarizer{err: errors.New("boom")}, want: "second", model: "a/2"},
		{name: "E30_timeout_moves_on", timeout: 50 * time.Millisecond, first: &stubSummarizer{block: true}, want: "second", model: "a/2"},
		{name: "E134_no_response_moves_on", first: &stubSummarizer{answer: "No response from secondary model."}, want: "second", model: "a/2"},
		{name: "first_answers", first: &stubSummarizer{answer: "first"}, want: "first", model: "a/1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			timeout := tc.timeout
			if timeout == 0 {
				timeout = time.Minute
			}
			c := tools.ChainSummarizers(timeout, tools.SummarizerCandidate{Ref: ref("1"), S: tc.first}, tools.SummarizerCandidate{Ref: ref("2"), S: &stubSummarizer{answer: "second"}})
			ans, err := c.Summarize(context.Background(), webfetch.SummaryRequest{})
			if err != nil || ans.Text != tc.want || ans.Model != tc.model {
				t.Errorf("answer %+v err %v, want %q from %s", ans, err, tc.want, tc.model)
			}
		})
	}
	t.Run("E68_all_fail_last_error", func(t *testing.T) {
		c := tools.ChainSummarizers(time.Second, tools.SummarizerCandidate{Ref: ref("1"), S: &stubSummarizer{err: errors.New("first failed")}},
			tools.SummarizerCandidate{Ref: ref("2"), S: &stubSummarizer{err: errors.New("second failed")}})
		if _, err := c.Summarize(context.Background(), webfetch.SummaryRequest{}); err == nil || err.Error() != "second failed" {
			t.Errorf("err %v, want the last error", err)
		}
	})
}

func TestModelChain(t *testing.T) {
	ref := func(s string) tools.ModelRef { m, _ := tools.ParseModelRef(s); return m }
	chains := []struct {
		name      string
		dedicated []tools.ModelRef
		fallbacks []tools.ModelRef
		want      []string
	}{
		{name: "E34_dedicated_first_duplicates_dropped", dedicated: []tools.ModelRef{ref("openai/gpt-4o-mini#fast"), ref("anthropic/claude-haiku")}, fallbacks: []tools.ModelRef{ref("anthropic/claude-haiku"), ref("google/gemini-flash")}, want: []string{"openai/gpt-4o-mini#fast", "anthropic/claude-haiku", "google/gemini-flash"}},
		{name: "E35_fallbacks_in_order", fallbacks: []tools.ModelRef{ref("a/small"), ref("b/explorer"), ref("c/librarian")}, want: []string{"a/small", "b/explorer", "c/librarian"}},
		{name: "E36_same_model_everywhere", dedicated: []tools.ModelRef{ref("a/m")}, fallbacks: []tools.ModelRef{ref("a/m"), ref("a/m"), ref("a/m")}, want: []string{"a/m"}},
		{name: "E38_nothing_configured", want: nil},
		{name: "E39_variant_and_plain_both_kept", dedicated: []tools.ModelRef{ref("openai/gpt-4o-mini#fast")}, fallbacks: []tools.ModelRef{ref("openai/gpt-4o-mini")}, want: []string{"openai/gpt-4o-mini#fast", "openai/gpt-4o-mini"}},
	}
	for _, tc := range chains {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, m := range tools.ResolveModelChain(tc.dedicated, tc.fallbacks...) {
				got = append(got, m.String())
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("chain %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("E37_invalid_refs", func(t *testing.T) {
		for _, s := range []string{"no-slash", "/missing-provider", "", "openai/"} {
			if _, ok := tools.ParseModelRef(s); ok {
				t.Errorf("ParseModelRef(%q) ok", s)
			}
		}
		if m, ok := tools.ParseModelRef("openrouter/meta/llama#v"); !ok || m.Model != "meta/llama" || m.Variant != "v" {
			t.Errorf("nested model id: %+v %v", m, ok)
		}
	})
	settings := []struct {
		name string
		v    any
		want string
	}{
		{name: "E40_string", v: "a/b", want: "a/b"},
		{name: "E40_array_of_strings", v: []any{"a/b"}, want: "a/b"},
		{name: "E40_array_of_objects", v: []any{map[string]any{"id": "a/b"}}, want: "a/b"},
		{name: "E40_object_with_variant", v: map[string]any{"id": "a/b", "variant": "fast"}, want: "a/b#fast"},
		{name: "E40_nil", v: nil},
		{name: "E40_number", v: 3.0},
		{name: "E40_empty_array", v: []any{}},
	}
	for _, tc := range settings {
		t.Run(tc.name, func(t *testing.T) {
			m, ok := tools.ModelFromSetting(tc.v)
			if (tc.want == "") == ok || (ok && m.String() != tc.want) {
				t.Errorf("ModelFromSetting(%v) = %v, %v; want %q", tc.v, m, ok, tc.want)
			}
		})
	}
}

// sessionHost records session calls. Its Prompt answers, fails, or waits for its context.
type sessionHost struct {
	mu          sync.Mutex
	next        int
	parents     []string
	aborts      int
	deletes     int
	deleted     []string
	deleteFails int // how many Delete calls fail (-1 = all)
	answer      string
	hang        bool // Prompt returns only when its context ends
}

func (h *sessionHost) CreateChild(_ context.Context, parent, _ string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.next++
	h.parents = append(h.parents, parent)
	return fmt.Sprint("s", h.next), nil
}

func (h *sessionHost) Prompt(ctx context.Context, _ string, _ tools.ModelRef, _, _ string) (string, error) {
	h.mu.Lock()
	hang := h.hang
	h.mu.Unlock()
	if hang {
		<-ctx.Done()
		return "", ctx.Err()
	}
	return h.answer, nil
}

func (h *sessionHost) Abort(context.Context, string) error {
	h.mu.Lock()
	h.aborts++
	h.mu.Unlock()
	return nil
}

func (h *sessionHost) Delete(_ context.Context, id string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.deletes++
	if h.deleteFails != 0 {
		if h.deleteFails > 0 {
			h.deleteFails--
		}
		return errors.New("delete failed")
	}
	h.deleted = append(h.deleted, id)
	return nil
}

func (h *sessionHost) state() (sessions, aborts, deletes int, deleted []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.next, h.aborts, h.deletes, append([]string(nil), h.deleted...)
}

// noWait stands in for the pause between deletion attempts, counting them.
type noWait struct {
	mu    sync.Mutex
	waits int
	err   error
}

func (w *noWait) wait(context.Context, time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waits++
	return w.err
}

const cleanupPending = "A secondary model session cleanup is still pending; using fetched content without starting another session"

func TestSessionSummarizer(t *testing.T) {
	ref := tools.ModelRef{Provider: "p", Model: "m"}
	logged := func() (*slog.Logger, *syncBuffer) {
		buf := &syncBuffer{}
		return slog.New(slog.NewTextHandler(buf, nil)), buf
	}
	t.Run("E26_chain_deletes_both_sessions", func(t *testing.T) {
		h1, h2 := &sessionHost{answer: "  "}, &sessionHost{answer: "second"}
		w := &noWait{}
		c := tools.ChainSummarizers(time.Second, tools.SummarizerCandidate{Ref: ref, S: tools.NewSessionSummarizer(h1, ref, tools.WithSessionWait(w.wait))},
			tools.SummarizerCandidate{Ref: ref, S: tools.NewSessionSummarizer(h2, ref, tools.WithSessionWait(w.wait))})
		ans, err := c.Summarize(context.Background(), webfetch.SummaryRequest{})
		_, _, _, d1 := h1.state()
		_, _, _, d2 := h2.state()
		if err != nil || ans.Text != "second" || len(d1) != 1 || len(d2) != 1 {
			t.Errorf("answer %+v err %v deleted %v %v", ans, err, d1, d2)
		}
	})
	t.Run("E28_delete_retried", func(t *testing.T) {
		h := &sessionHost{answer: "ok", deleteFails: 1}
		l, buf := logged()
		w := &noWait{}
		ans, err := tools.NewSessionSummarizer(h, ref, tools.WithSessionLogger(l), tools.WithSessionWait(w.wait)).Summarize(context.Background(), webfetch.SummaryRequest{})
		_, _, deletes, d := h.state()
		if err != nil || ans.Text != "ok" || len(d) != 1 || deletes != 2 || w.waits != 1 || buf.Len() != 0 {
			t.Errorf("answer %+v err %v deleted %v after %d attempts, %d waits, log %q", ans, err, d, deletes, w.waits, buf.String())
		}
	})
	t.Run("E29_delete_always_fails_one_warning", func(t *testing.T) {
		h := &sessionHost{answer: "ok", deleteFails: -1}
		l, buf := logged()
		w := &noWait{}
		s := tools.NewSessionSummarizer(h, ref, tools.WithSessionLogger(l), tools.WithSessionWait(w.wait))
		for range 2 {
			if ans, err := s.Summarize(context.Background(), webfetch.SummaryRequest{}); err != nil || ans.Text != "ok" {
				t.Fatalf("answer %+v err %v", ans, err)
			}
		}
		_, _, deletes, _ := h.state()
		if n := strings.Count(buf.String(), "\n"); n != 1 || !strings.Contains(buf.String(), "webfetch") || deletes != 6 {
			t.Errorf("log %q after %d attempts, want one line mentioning webfetch after 3 attempts per session", buf.String(), deletes)
		}
	})
	t.Run("E31_timeout_aborts_once_then_next_call_deletes", func(t *testing.T) {
		h := &sessionHost{hang: true, deleteFails: 1}
		w := &noWait{}
		s := tools.NewSessionSummarizer(h, ref, tools.WithSessionWait(w.wait))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		if _, err := s.Summarize(ctx, webfetch.SummaryRequest{}); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v, want the deadline", err)
		}
		sessions, aborts, _, deleted := h.state()
		if sessions != 1 || aborts != 1 || len(deleted) != 0 {
			t.Fatalf("sessions %d aborts %d deleted %v: want one session, aborted once, its deletion failed once", sessions, aborts, deleted)
		}
		h.mu.Lock()
		h.hang, h.answer = false, "fine"
		h.mu.Unlock()
		ans, err := s.Summarize(context.Background(), webfetch.SummaryRequest{})
		_, aborts, _, deleted = h.state()
		if err != nil || ans.Text != "fine" || aborts != 1 || strings.Join(deleted, ",") != "s1,s2" {
			t.Errorf("answer %+v err %v aborts %d deleted %v: the left session goes first", ans, err, aborts, deleted)
		}
	})
	t.Run("E32_cleanup_pending_fails_fast", func(t *testing.T) {
		h := &sessionHost{hang: true, deleteFails: -1}
		w := &noWait{err: context.DeadlineExceeded} // the call's time ends between attempts
		s := tools.NewSessionSummarizer(h, ref, tools.WithSessionWait(w.wait))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		_, _ = s.Summarize(ctx, webfetch.SummaryRequest{})
		_, err := s.Summarize(context.Background(), webfetch.SummaryRequest{})
		if err == nil || err.Error() != cleanupPending {
			t.Fatalf("err %v, want %q", err, cleanupPending)
		}
		if sessions, _, _, _ := h.state(); sessions != 1 {
			t.Errorf("%d sessions created while a cleanup was pending", sessions)
		}
		// In a fetch the content comes back with the reason.
		srv := newWebfetchPage(t, strings.Repeat("word ", 60))
		f, err := webfetch.New(webfetch.WithUnsafeTransport(srv), webfetch.WithSummarizer(s))
		if err != nil {
			t.Fatal(err)
		}
		r, err := f.Fetch(context.Background(), webfetch.Request{URL: "https://docs.example.com/page", Prompt: "q", LLMS: webfetch.LLMSNever})
		if err != nil || r.SkipReason != webfetch.SkipModelFailed || r.SummaryError != cleanupPending {
			t.Fatalf("err %v skip %q error %q", err, r.SkipReason, r.SummaryError)
		}
		// Once deletion works again, so do calls.
		h.mu.Lock()
		h.deleteFails, h.hang, h.answer = 0, false, "fine"
		h.mu.Unlock()
		w.mu.Lock()
		w.err = nil
		w.mu.Unlock()
		if ans, err := s.Summarize(context.Background(), webfetch.SummaryRequest{}); err != nil || ans.Text != "fine" {
			t.Errorf("after cleanup: answer %+v err %v", ans, err)
		}
	})
	t.Run("E33_parent_session", func(t *testing.T) {
		h := &sessionHost{answer: "ok"}
		s := tools.NewSessionSummarizer(h, ref)
		_, _ = s.Summarize(context.Background(), webfetch.SummaryRequest{SessionID: "parent-1"})
		_, _ = s.Summarize(context.Background(), webfetch.SummaryRequest{})
		h.mu.Lock()
		defer h.mu.Unlock()
		if len(h.parents) != 2 || h.parents[0] != "parent-1" || h.parents[1] != "" {
			t.Errorf("parents %q", h.parents)
		}
	})
}

// The session summarizer keeps everything within its calls: its source starts no goroutine.
func TestSessionSummarizerStartsNoGoroutine(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "webfetch_session.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if g, ok := n.(*ast.GoStmt); ok {
			t.Errorf("%s: go statement", fset.Position(g.Pos()))
		}
		return true
	})
}

// newWebfetchPage is an in-process web serving one text page.
func newWebfetchPage(t *testing.T, body string) fakeWeb {
	t.Helper()
	return fakeWeb{http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, body)
	})}
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) Len() int { return len(s.String()) }
