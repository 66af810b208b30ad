package webfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/harnesskit/harnesskit/webfetch/internal/extract"
)

type probeCandidate struct {
	u       *url.URL
	variant bool // a per-page Markdown variant, not a site file
}

// candidates lists the llms.txt probes for a call and whether probing is on.
//
// Root pages probe the site files (llms-full.txt, then llms.txt; https first, then the typed
// http:// origin). Deep pages probe only their own Markdown variant (path + ".md", or
// "index.html.md" after a trailing slash); a deep page with a query has none. A URL that
// already names llms.txt or a .md file is fetched as a page, except in LLMSAlways where it is
// the only candidate.
func (c *config) candidates(cl *call) ([]probeCandidate, bool) {
	switch cl.mode {
	case LLMSNever:
		return nil, false
	case LLMSAuto:
		if !c.docsLike(cl.typed.Hostname()) {
			return nil, false
		}
	}
	t := cl.target
	if isDirect(t) {
		if cl.mode != LLMSAlways {
			return nil, false
		}
		return []probeCandidate{{u: t, variant: !isSiteFile(t.Path)}}, true
	}
	var origins []*url.URL
	origins = append(origins, t)
	if cl.fallback != nil {
		origins = append(origins, cl.fallback)
	}
	var out []probeCandidate
	if isRoot(t) {
		for _, o := range origins {
			for _, name := range []string{"/llms-full.txt", "/llms.txt"} {
				u := &url.URL{Scheme: o.Scheme, Host: o.Host, Path: name}
				out = append(out, probeCandidate{u: u})
			}
		}
		return out, true
	}
	if t.RawQuery != "" {
		return nil, cl.mode == LLMSAlways
	}
	p := t.Path
	if strings.HasSuffix(p, "/") {
		p += "index.html.md"
	} else {
		p += ".md"
	}
	for _, o := range origins {
		out = append(out, probeCandidate{u: &url.URL{Scheme: o.Scheme, Host: o.Host, Path: p}, variant: true})
	}
	return out, true
}

// probe tries the candidates in order within the probe budget. It returns the accepted
// result, or the last rejection reason.
func (f *Fetcher) probe(ctx context.Context, c *call) (*stored, string, error) {
	budget := f.cfg.limits.ProbeBudget
	if dl, ok := ctx.Deadline(); ok {
		budget = min(budget, time.Until(dl))
	}
	errProbeBudget := errors.New("probe budget")
	pctx, cancel := context.WithTimeoutCause(ctx, budget, errProbeBudget)
	defer cancel()
	reason := ""
	if len(c.cands) == 0 {
		reason = "llms.txt probe has no candidate for a page with a query string: " + wire(c.target)
	}
	for _, cand := range c.cands {
		st, why, err := f.probeOne(pctx, c, cand)
		if ctx.Err() != nil {
			// The call itself ended: that is the caller's error, not a probe rejection.
			return nil, "", ctx.Err()
		}
		if context.Cause(pctx) == errProbeBudget {
			return nil, fmt.Sprintf("timeout after %dms", budget.Milliseconds()), nil
		}
		if err != nil {
			reason = err.Error()
			f.cfg.logger.Debug("webfetch: llms.txt candidate failed", "url", wire(cand.u), "error", reason)
			continue
		}
		if st != nil {
			return st, "", nil
		}
		if why != "" {
			reason = why
			f.cfg.logger.Debug("webfetch: llms.txt candidate rejected", "url", wire(cand.u), "reason", why)
		}
	}
	return nil, reason, nil
}

var loginTitle = regexp.MustCompile(`(?is)<title[^>]*>\s*(log ?in|sign in)`)

func (f *Fetcher) probeOne(ctx context.Context, c *call, cand probeCandidate) (*stored, string, error) {
	accept := acceptSite
	if cand.variant {
		accept = acceptVariant
	}
	resp, hops, blk, err := f.follow(ctx, cand.u, accept, nil, false)
	if err != nil {
		return nil, "", err
	}
	if blk != nil {
		return nil, "llms.txt probe blocked by cross-host redirect: " + blk.hop.To, nil
	}
	defer drain(resp)
	final := resp.Request.URL
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if c.mode == LLMSAlways {
			return nil, fmt.Sprintf("llms.txt probe returned status %d: %s", resp.StatusCode, wire(final)), nil
		}
		return nil, "", nil
	}
	if !llmsPath(final.Path, cand.variant) {
		return nil, "llms.txt probe resolved to non-llms path: " + wire(final), nil
	}
	limit := f.cfg.limits.MaxTextBytes
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, "", readErr(ctx, final, err)
	}
	cut := int64(len(raw)) > limit
	if cut {
		raw = raw[:limit]
	}
	ct := resp.Header.Get("Content-Type")
	if enc := strings.TrimSpace(resp.Header.Get("Content-Encoding")); (enc != "" && !strings.EqualFold(enc, "identity")) ||
		!looksText(raw[:min(len(raw), sniffWindow)], ct) {
		return nil, "llms.txt probe returned binary content: " + wire(final), nil
	}
	dec := decodeBody(raw, ct, false, cut)
	dec.text = scrubControls(dec.text)
	if !llmsContentOK(ct, dec.text, wire(final)) {
		return nil, "llms.txt probe returned HTML/login content: " + wire(final), nil
	}
	txt := collapseBlank(dec.text)
	st := &stored{
		finalURL:      wire(final),
		status:        resp.StatusCode,
		contentType:   ct,
		charset:       contentTypeCharset(ct),
		etag:          resp.Header.Get("ETag"),
		lastModified:  resp.Header.Get("Last-Modified"),
		contentLength: resp.ContentLength,
		redirects:     hops,
		usedLLMS:      true,
		llmsTruncated: cut,
		markdown:      txt,
		text:          txt,
		noStore:       hasNoStore(resp.Header.Get("Cache-Control")),
		upgraded:      c.fallback != nil && cand.u.Scheme == "https",
	}
	if st.contentType == "" {
		st.contentType = "text/plain"
	}
	st.source = SourceLLMSTxt
	if cand.variant {
		st.source = SourceLLMSMD
	}
	st.title = extract.MarkdownTitle(txt)
	st.headings = extract.MarkdownHeadings(txt, f.cfg.limits.MaxHeadings)
	st.canonical = frontmatterURL(txt)
	st.setDecode(dec)
	st.finishText(len(raw))
	return st, "", nil
}

func llmsPath(p string, variant bool) bool {
	if variant {
		return strings.HasSuffix(p, ".md") && !isSiteFile(p)
	}
	return isSiteFile(p)
}

// llmsContentOK applies the content rules: not HTML by type or by its first bytes, not a login
// wall, not blank.
func llmsContentOK(ct, body, finalURL string) bool {
	media := strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
	if media == "text/html" || media == "application/xhtml+xml" {
		return false
	}
	head := strings.ToLower(strings.TrimLeft(strings.TrimPrefix(body, "\uFEFF"), " \t\r\n\f"))
	if strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html") {
		return false
	}
	if loginTitle.MatchString(body[:min(len(body), 64<<10)]) {
		return false
	}
	lu := strings.ToLower(finalURL)
	if strings.Contains(lu, "login") || strings.Contains(lu, "log-in") || strings.Contains(lu, "log in") || strings.Contains(lu, "log%20in") {
		return false
	}
	return strings.TrimSpace(body) != ""
}

// llmsStillValid re-checks a cached llms result with the probe rules.
func llmsStillValid(st *stored) bool {
	u, err := url.Parse(st.finalURL)
	if err != nil {
		return false
	}
	return llmsPath(u.Path, st.source == SourceLLMSMD) && llmsContentOK(st.contentType, st.text, st.finalURL)
}

// frontmatterURL returns the url: value of a leading frontmatter block.
func frontmatterURL(s string) string {
	rest, ok := strings.CutPrefix(s, "---\n")
	if !ok {
		return ""
	}
	block, _, ok := strings.Cut(rest, "\n---")
	if !ok {
		return ""
	}
	for line := range strings.SplitSeq(block, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "url:"); ok {
			v = strings.Trim(strings.TrimSpace(v), `"'`)
			if u, err := url.Parse(v); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
				return v
			}
		}
	}
	return ""
}
