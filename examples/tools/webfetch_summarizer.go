package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/harnesskit/harnesskit/webfetch"
)

// This file holds the host side of webfetch's secondary model: naming models the way agent
// hosts configure them, and trying several in turn. Pass the result to the fetcher with
// WithWebFetch(webfetch.WithSummarizer(...)).

// ModelRef names a model as provider/model with an optional #variant.
type ModelRef struct{ Provider, Model, Variant string }

// ParseModelRef parses "provider/model" (split at the first slash; the model may contain
// more slashes) with an optional "#variant" suffix. An empty provider or model is not ok.
func ParseModelRef(s string) (ModelRef, bool) {
	s = strings.TrimSpace(s)
	body, variant, _ := strings.Cut(s, "#")
	prov, model, ok := strings.Cut(body, "/")
	if !ok || prov == "" || model == "" {
		return ModelRef{}, false
	}
	return ModelRef{Provider: prov, Model: model, Variant: variant}, true
}

func (m ModelRef) String() string {
	s := m.Provider + "/" + m.Model
	if m.Variant != "" {
		s += "#" + m.Variant
	}
	return s
}

func (m ModelRef) valid() bool { return m.Provider != "" && m.Model != "" }

// ModelFromSetting reads a model setting as hosts store it: a string; an array (its first
// string, or its first object's id); or an object with id and optional variant.
func ModelFromSetting(v any) (ModelRef, bool) {
	switch x := v.(type) {
	case string:
		return ParseModelRef(x)
	case []any:
		for _, e := range x {
			switch y := e.(type) {
			case string:
				return ParseModelRef(y)
			case map[string]any:
				return ModelFromSetting(y)
			}
		}
	case []string:
		if len(x) > 0 {
			return ParseModelRef(x[0])
		}
	case map[string]any:
		id, _ := x["id"].(string)
		m, ok := ParseModelRef(id)
		if !ok {
			return ModelRef{}, false
		}
		if v, ok := x["variant"].(string); ok && v != "" {
			m.Variant = v
		}
		return m, true
	}
	return ModelRef{}, false
}

// ResolveModelChain lists the models to try: dedicated ones first, then fallbacks (for
// example the host's small model, then its explorer and librarian agents' models), skipping
// invalid references and duplicates (by String), keeping order.
func ResolveModelChain(dedicated []ModelRef, fallbacks ...ModelRef) []ModelRef {
	seen := map[string]bool{}
	var out []ModelRef
	for _, m := range append(append([]ModelRef{}, dedicated...), fallbacks...) {
		if !m.valid() || seen[m.String()] {
			continue
		}
		seen[m.String()] = true
		out = append(out, m)
	}
	return out
}

// SummarizerCandidate is one model of a ChainSummarizers.
type SummarizerCandidate struct {
	Ref ModelRef
	S   webfetch.Summarizer
}

type summarizerChain struct {
	timeout time.Duration
	cands   []SummarizerCandidate
}

// noResponse is the text some hosts return instead of an error.
const noResponse = "No response from secondary model."

// ChainSummarizers tries candidates in order, each within its own timeout (default
// webfetch.DefaultSummaryTimeout) and the caller's deadline. An error, a timeout, a blank
// answer or "No response from secondary model." moves on to the next; when all fail the
// last error is returned. To webfetch the chain is one summarizer call.
func ChainSummarizers(timeout time.Duration, cands ...SummarizerCandidate) webfetch.Summarizer {
	if timeout <= 0 {
		timeout = webfetch.DefaultSummaryTimeout
	}
	return &summarizerChain{timeout: timeout, cands: cands}
}

func (c *summarizerChain) Summarize(ctx context.Context, req webfetch.SummaryRequest) (webfetch.Summary, error) {
	last := errors.New("no secondary model configured")
	for _, cand := range c.cands {
		if ctx.Err() != nil {
			return webfetch.Summary{}, ctx.Err()
		}
		cctx, cancel := context.WithTimeout(ctx, c.timeout)
		ans, err := cand.S.Summarize(cctx, req)
		timedOut := cctx.Err() != nil && ctx.Err() == nil
		cancel()
		switch t := strings.TrimSpace(ans.Text); {
		case err != nil:
		case timedOut:
			err = errors.New("timeout")
		case t == "":
			err = errors.New("the secondary model returned an empty answer")
		case t == noResponse:
			err = errors.New(noResponse)
		}
		if err != nil {
			if timedOut {
				err = fmt.Errorf("%s: timeout after %dms", cand.Ref, c.timeout.Milliseconds())
			}
			last = err
			continue
		}
		if ans.Model == "" {
			ans.Model = cand.Ref.String()
		}
		return ans, nil
	}
	return webfetch.Summary{}, last
}

var _ webfetch.Summarizer = (*summarizerChain)(nil)
