package webfetch

import (
	"context"
	"errors"
	"fmt"
	"html"
	"strings"
	"time"
	"unicode/utf8"
)

// Summarizer answers a task from fetched content with a secondary model. It must return when
// its context ends.
type Summarizer interface {
	Summarize(ctx context.Context, req SummaryRequest) (Summary, error)
}

// SummaryRequest is the complete prompt: System and User are what a host sends as is;
// Prompt and Content are their parts for hosts that build their own.
type SummaryRequest struct {
	System, User   string
	Prompt         string
	Content        string
	URL, SessionID string
	InputChars     int
	SourceChars    int
	InputTruncated bool
}

// Summary is a summarizer's answer and the model that gave it ("provider/model#variant").
type Summary struct{ Text, Model string }

// SummarySystem is the system text of every summarizer request.
const SummarySystem = "Answer only from the supplied content. Do not use tools or outside knowledge."

const summaryInstructions = "Use only the fetched content below to complete the task. Do not use tools, outside knowledge or assumptions. " +
	"Answer concisely. If the content does not contain the answer, say so plainly. " +
	"Include code or exact values only when they are relevant to the task."

// noResponse is the text some hosts return instead of an error; it counts as a failure.
const noResponse = "No response from secondary model."

// summarize applies the gate and, when it passes, calls the summarizer. It reports whether r
// now holds the answer. A failure leaves r as content with the reason.
func (f *Fetcher) summarize(ctx context.Context, c *call, st *stored, r *Result) bool {
	if c.req.Prompt == "" {
		return false
	}
	switch {
	case strings.TrimSpace(c.req.Prompt) == "":
		r.SkipReason = SkipNoPrompt
		return false
	case f.cfg.summarizer == nil:
		r.SkipReason = SkipNoModel
		return false
	case strings.TrimSpace(st.markdown) == "":
		r.SkipReason = SkipEmptyContent
		return false
	case st.wordCount > 0 && st.wordCount < 25:
		r.SkipReason = SkipTooShort
		return false
	}
	source := st.markdown[byteIndex(st.markdown, c.req.Offset):]
	sourceChars := utf8.RuneCountInString(source)
	input := source
	limit := f.cfg.limits.MaxSummaryInputChars
	truncated := sourceChars > limit
	if truncated {
		input = source[:byteIndex(source, limit)]
	}
	inputChars := utf8.RuneCountInString(input)
	user := summaryInstructions + "\n\nFetched content:\n---\n" + input + "\n---\n\nTask:\n" + c.req.Prompt
	if truncated {
		user += fmt.Sprintf("\n\nNote: only the first %d characters of a longer fetched document were provided.", inputChars)
	}
	timeout := f.cfg.summaryTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl))
	}
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ans, err := f.cfg.summarizer.Summarize(sctx, SummaryRequest{
		System: SummarySystem, User: user, Prompt: c.req.Prompt, Content: input,
		URL: st.finalURL, SessionID: c.req.SessionID,
		InputChars: inputChars, SourceChars: sourceChars, InputTruncated: truncated,
	})
	if err == nil {
		err = checkAnswer(ans)
	}
	if sctx.Err() != nil && (err != nil || errors.Is(sctx.Err(), context.DeadlineExceeded)) {
		if errors.Is(sctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("timeout after %dms", timeout.Milliseconds())
		}
	}
	if err != nil {
		r.SkipReason, r.SummaryError = SkipModelFailed, err.Error()
		return false
	}
	r.Kind = KindSummary
	r.Summary = &SummaryInfo{Model: ans.Model, InputChars: inputChars, SourceChars: sourceChars, InputTruncated: truncated}
	r.Content = ans.Text
	if c.format == FormatHTML {
		r.Content = "<pre>" + html.EscapeString(ans.Text) + "</pre>"
	}
	return true
}

func checkAnswer(s Summary) error {
	t := strings.TrimSpace(s.Text)
	switch {
	case t == "":
		return errors.New("the secondary model returned an empty answer")
	case t == noResponse:
		return errors.New(noResponse)
	}
	return nil
}
