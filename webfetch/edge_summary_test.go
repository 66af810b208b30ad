package webfetch

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeSummarizer answers with a fixed text or error, optionally waiting for its context.
type fakeSummarizer struct {
	answer string
	model  string
	err    error
	block  bool
	calls  atomic.Int32
	mu     sync.Mutex
	last   SummaryRequest
}

func (s *fakeSummarizer) Summarize(ctx context.Context, req SummaryRequest) (Summary, error) {
	s.calls.Add(1)
	s.mu.Lock()
	s.last = req
	s.mu.Unlock()
	if s.block {
		<-ctx.Done()
		return Summary{}, ctx.Err()
	}
	if s.err != nil {
		return Summary{}, s.err
	}
	return Summary{Text: s.answer, Model: s.model}, nil
}

func TestEdgeSummarizer(t *testing.T) {
	page := "The release notes say version 2 adds streaming. " + words(40)
	tests := []struct {
		name      string
		body      string
		summ      Summarizer
		prompt    string
		format    Format
		limits    Limits
		timeout   time.Duration
		wantKind  Kind
		wantSkip  SkipReason
		wantErr   string
		wantCalls int32
	}{
		{name: "E3_answer_replaces_content", body: page, summ: &fakeSummarizer{answer: "Version 2 adds streaming.", model: "openai/gpt-4o-mini"}, prompt: "What is new?", wantKind: KindSummary, wantCalls: 1},
		{name: "E66_too_short", body: words(10), summ: &fakeSummarizer{answer: "x"}, prompt: "q", wantKind: KindContent, wantSkip: SkipTooShort, wantCalls: 0},
		{name: "E67_no_summarizer", body: page, prompt: "q", wantKind: KindContent, wantSkip: SkipNoModel},
		{name: "E68_summarizer_fails", body: page, prompt: "q", wantKind: KindContent, wantSkip: SkipModelFailed, wantErr: "second failed",
			summ: &fakeSummarizer{err: errors.New("second failed")}, wantCalls: 1},
		{name: "E69_html_answer_escaped", body: page, summ: &fakeSummarizer{answer: "a <b> & c", model: "m/x"}, prompt: "q", format: FormatHTML, wantKind: KindSummary, wantCalls: 1},
		{name: "E133_summarizer_past_deadline", body: page, summ: &fakeSummarizer{block: true}, prompt: "q", timeout: 300 * time.Millisecond, wantKind: KindContent, wantSkip: SkipModelFailed, wantErr: "timeout after", wantCalls: 1},
		{name: "E134_no_response_text_is_failure", body: page, summ: &fakeSummarizer{answer: "No response from secondary model."}, prompt: "q", wantKind: KindContent, wantSkip: SkipModelFailed, wantErr: "No response from secondary model.", wantCalls: 1},
		{name: "E135_blank_prompt", body: page, summ: &fakeSummarizer{answer: "x"}, prompt: "   ", wantKind: KindContent, wantSkip: SkipNoPrompt, wantCalls: 0},
		{name: "E127_cjk_words_pass_gate", body: strings.Repeat("漢字", 20), summ: &fakeSummarizer{answer: "ok", model: "m/x"}, prompt: "q", wantKind: KindSummary, wantCalls: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTLSSite(t, serve(ptr("text/plain; charset=utf-8"), []byte(tc.body)))
			opts := []Option{WithHTTPClient(s.Client()), WithLimits(tc.limits)}
			if tc.summ != nil {
				opts = append(opts, WithSummarizer(tc.summ))
			}
			f, _, _ := testFetcher(t, opts...)
			start := time.Now()
			r := fetch(t, f, Request{URL: s.URL + "/notes", Prompt: tc.prompt, Format: tc.format, Timeout: tc.timeout})
			if tc.timeout > 0 && time.Since(start) > tc.timeout+time.Second {
				t.Errorf("call took %v with a %v deadline", time.Since(start), tc.timeout)
			}
			if r.Kind != tc.wantKind || r.SkipReason != tc.wantSkip || !strings.Contains(r.SummaryError, tc.wantErr) {
				t.Fatalf("kind %v skip %q err %q", r.Kind, r.SkipReason, r.SummaryError)
			}
			if fs, ok := tc.summ.(*fakeSummarizer); ok && fs.calls.Load() != tc.wantCalls {
				t.Errorf("summarizer calls %d, want %d", fs.calls.Load(), tc.wantCalls)
			}
			out := Render(r)
			switch tc.name {
			case "E3_answer_replaces_content":
				fs := tc.summ.(*fakeSummarizer)
				if fs.last.System != SummarySystem || !strings.Contains(fs.last.User, "Fetched content:\n---\n"+page+"\n---\n\nTask:\nWhat is new?") {
					t.Errorf("user text %q", fs.last.User)
				}
				if r.Content != "Version 2 adds streaming." || !strings.Contains(out, `secondary_model: "openai/gpt-4o-mini"`) {
					t.Errorf("render:\n%s", out)
				}
			case "E69_html_answer_escaped":
				if r.Content != "<pre>a &lt;b&gt; &amp; c</pre>" || strings.Contains(out, "truncated..") {
					t.Errorf("content %q", r.Content)
				}
			case "E127_cjk_words_pass_gate":
				if r.WordCount != 40 {
					t.Errorf("word_count %d, want 40", r.WordCount)
				}
			}
			if tc.wantSkip != "" && !strings.Contains(out, `secondary_model_skipped_reason: "`+string(tc.wantSkip)+`"`) {
				t.Errorf("render lacks the skip reason:\n%s", out)
			}
		})
	}
	t.Run("E137_long_input_truncated", func(t *testing.T) {
		body := strings.Repeat("abcdefghi\n", 2000)
		s := newTLSSite(t, serve(ptr("text/plain"), []byte(body)))
		fs := &fakeSummarizer{answer: "ok", model: "m/x"}
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithSummarizer(fs), WithLimits(Limits{MaxSummaryInputChars: 1000}))
		r := fetch(t, f, Request{URL: s.URL + "/", Prompt: "q"})
		if !r.Summary.InputTruncated || r.Summary.InputChars != 1000 || !strings.HasSuffix(fs.last.User, "Note: only the first 1000 characters of a longer fetched document were provided.") {
			t.Errorf("summary %+v user tail %q", r.Summary, fs.last.User[len(fs.last.User)-90:])
		}
	})
}
