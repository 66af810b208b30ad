package webfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Accept headers.
const (
	acceptPage    = "text/html;q=1.0, application/xhtml+xml;q=0.9, text/markdown;q=0.8, text/plain;q=0.8, */*;q=0.1"
	acceptSite    = "text/plain, text/markdown;q=0.9, */*;q=0.1"
	acceptVariant = "text/markdown, text/plain;q=0.9, */*;q=0.1"
)

// Fetcher fetches pages for a model. It is safe for concurrent use; build it with [New].
type Fetcher struct {
	cfg    config
	client *http.Client

	cache Cache // nil: no cache

	mu     sync.Mutex // guards closed
	closed bool
}

// New builds a Fetcher. It validates every option and returns an error naming the bad one
// (wrapping ErrInvalidRequest). It starts no goroutine, reads no file and touches no network.
func New(opts ...Option) (*Fetcher, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if err := c.finish(); err != nil {
		return nil, err
	}
	client, err := c.buildClient()
	if err != nil {
		return nil, err
	}
	f := &Fetcher{cfg: c, client: client}
	switch {
	case c.noCache:
	case c.store != nil:
		f.cache = c.store
	default:
		f.cache = newMemoryCache(c.cacheBytes)
	}
	return f, nil
}

// Close closes idle connections. It is idempotent; later Fetch calls return ErrClosed.
func (f *Fetcher) Close() error {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.client.CloseIdleConnections()
	return nil
}

// call is the per-Fetch state.
type call struct {
	req      Request
	typed    *url.URL // as typed, host in ASCII, fragment kept
	target   *url.URL // first URL fetched (https when upgraded), no fragment
	fallback *url.URL // typed http:// URL when an upgrade is tried
	mode     LLMSMode
	format   Format
	timeout  time.Duration
	key      CacheKey
	probe    bool
	cands    []probeCandidate
}

var errCallDeadline = errors.New("webfetch: call deadline")

func (f *Fetcher) prepare(req Request) (*call, error) {
	l := f.cfg.limits
	u, err := parseTarget(req.URL, l.MaxURLLength)
	if err != nil {
		return nil, err
	}
	c := &call{req: req, typed: u, format: req.Format, mode: req.LLMS, timeout: req.Timeout}
	switch c.format {
	case "":
		c.format = FormatMarkdown
	case FormatMarkdown, FormatText, FormatHTML:
	default:
		return nil, newErr(ErrInvalidRequest, req.URL, "Invalid format %q: use %s", req.Format, quoteList("markdown", "text", "html"))
	}
	switch c.mode {
	case "":
		c.mode = f.cfg.llms
	case LLMSAuto, LLMSAlways, LLMSNever:
	default:
		return nil, newErr(ErrInvalidRequest, req.URL, "Invalid prefer_llms_txt %q: use %s", req.LLMS, quoteList("auto", "always", "never"))
	}
	switch {
	case c.timeout < 0:
		return nil, newErr(ErrInvalidRequest, req.URL, "Invalid timeout %s: use a positive duration up to %s", req.Timeout, l.MaxTimeout)
	case c.timeout == 0:
		c.timeout = l.DefaultTimeout
	case c.timeout > l.MaxTimeout:
		c.timeout = l.MaxTimeout
	}
	if req.Offset < 0 {
		return nil, newErr(ErrInvalidRequest, req.URL, "Invalid offset %d: use 0 or a next_offset from an earlier result", req.Offset)
	}
	noFrag := *u
	noFrag.Fragment, noFrag.RawFragment = "", ""
	c.target = &noFrag
	if u.Scheme == "http" {
		c.target = withScheme(&noFrag, "https")
		c.fallback = &noFrag
	}
	c.key = CacheKey{Tenant: req.Tenant, Policy: f.cfg.fingerprint, Target: cacheTarget(u, req.WholePage, c.mode, req.SaveBinary)}
	c.cands, c.probe = f.cfg.candidates(c)
	return c, nil
}

func (c *call) permission(cfg *config) PermissionRequest {
	p := PermissionRequest{
		URL:          wire(c.target),
		RequestedURL: c.req.URL,
		ProbeLLMS:    c.probe,
		Format:       c.format,
		Prompt:       c.req.Prompt,
	}
	p.Patterns = append(p.Patterns, wire(c.target))
	if c.fallback != nil {
		p.FallbackURL = wire(c.fallback)
		p.Patterns = append(p.Patterns, p.FallbackURL)
	}
	for _, cand := range c.cands {
		p.Patterns = append(p.Patterns, wire(cand.u))
	}
	p.Patterns = append(p.Patterns, cfg.allow...)
	return p
}

// Fetch fetches req.URL and returns the result to show the model.
//
// Normal outcomes that carry a message instead of content (a blocked redirect, llms.txt
// required but unavailable, a binary body) are results, not errors. Errors wrap one sentinel:
// ErrInvalidURL, ErrInvalidRequest, ErrPermissionDenied, ErrBlocked, ErrTimeout,
// ErrTooManyRedirects (*RedirectError), ErrMissingLocation, ErrStatus (*StatusError),
// ErrFilename, ErrTransport or ErrClosed. When ctx is cancelled the error also wraps
// ctx.Err(). A summarizer failure never fails the call.
func (f *Fetcher) Fetch(ctx context.Context, req Request) (*Result, error) {
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	if closed {
		return nil, newErr(ErrClosed, req.URL, "webfetch: the fetcher is closed")
	}
	c, err := f.prepare(req)
	if err != nil {
		return nil, err
	}
	if f.cfg.permission != nil {
		if err := f.cfg.permission(ctx, c.permission(&f.cfg)); err != nil {
			return nil, &Error{Err: ErrPermissionDenied, URL: req.URL, Msg: fmt.Sprintf("Permission to fetch %s was denied: %v", wire(c.target), err), Cause: err}
		}
	}
	if err := f.cfg.policy.precheck(c.target.Hostname()); err != nil && f.cfg.proxy == nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, c.timeout, errCallDeadline)
	defer cancel()
	st, msg, err := f.obtain(ctx, c)
	if err != nil {
		return nil, f.ctxErr(ctx, c, err)
	}
	if msg != nil {
		return msg, nil
	}
	return f.present(ctx, c, st)
}

// ctxErr turns deadline and cancellation into the documented errors.
func (f *Fetcher) ctxErr(ctx context.Context, c *call, err error) error {
	if ctx.Err() == nil {
		return err
	}
	if context.Cause(ctx) == errCallDeadline {
		// No context cause: the model can act on a timeout (a longer timeout, another URL).
		return &Error{Err: ErrTimeout, URL: c.req.URL, Msg: fmt.Sprintf("timeout after %dms", c.timeout.Milliseconds())}
	}
	var e *Error
	if errors.As(err, &e) && errors.Is(err, ctx.Err()) {
		return err
	}
	return &Error{Err: ErrTransport, URL: c.req.URL, Msg: fmt.Sprintf("Fetching %s was cancelled: %v", wire(c.target), ctx.Err()), Cause: ctx.Err()}
}

func (f *Fetcher) now() time.Time { return f.cfg.clock.Now() }

// obtain returns the stored outcome (from the cache, a probe or the page) or a message result.
func (f *Fetcher) obtain(ctx context.Context, c *call) (*stored, *Result, error) {
	stale := f.lookup(ctx, c)
	if stale != nil && stale.fresh {
		st := stale.e.outcome()
		st.cacheHit = true
		return st, nil, nil
	}
	var probeErr string
	if stale == nil && c.probe {
		st, reason, err := f.probe(ctx, c)
		if err != nil {
			return nil, nil, err
		}
		if st != nil {
			f.store(ctx, c, st)
			return st, nil, nil
		}
		if c.mode == LLMSAlways {
			return nil, llmsUnavailable(c, reason), nil
		}
		probeErr = reason
	}
	var cond *CacheEntry
	if stale != nil {
		cond = stale.e
	}
	st, blocked, err := f.fetchPage(ctx, c, cond)
	if err != nil {
		return nil, nil, err
	}
	if blocked != nil {
		return nil, blocked, nil
	}
	st.llmsProbeError = probeErr
	if st.cacheRevalidated {
		if ctx.Err() == nil {
			now := f.now()
			keep := newEntry(st, now, f.cfg.cacheTTL, f.cfg.staleCap).KeepUntil
			f.cacheErr("refresh", c.key, f.cache.Refresh(ctx, c.key, CacheRefresh{
				StoredAt: now, KeepUntil: keep, ETag: st.etag, LastModified: st.lastModified,
				OldETag: cond.ETag, OldLastModified: cond.LastModified,
			}))
		}
		return st, nil, nil
	}
	f.store(ctx, c, st)
	return st, nil, nil
}

// hit is a usable cache entry: fresh, or stale with validators.
type hit struct {
	e     *CacheEntry
	fresh bool
}

// lookup returns the call's usable cache entry, or nil. Entries past KeepUntil, stale
// entries without validators, stale llms results and llms results that no longer pass the
// probe rules are misses (a later Put replaces them).
func (f *Fetcher) lookup(ctx context.Context, c *call) *hit {
	if f.cache == nil {
		return nil
	}
	e, err := f.cache.Get(ctx, c.key)
	if err != nil || e == nil || e.st == nil {
		f.cacheErr("get", c.key, err)
		return nil
	}
	now := f.now()
	if now.Before(e.StoredAt.Add(f.cfg.cacheTTL)) {
		if e.st.usedLLMS && !llmsStillValid(e.st) {
			return nil
		}
		return &hit{e: e, fresh: true}
	}
	// Stale: usable only for revalidation, within both this Fetcher's stale cap and the
	// entry's own KeepUntil.
	switch {
	case e.st.usedLLMS, e.ETag == "" && e.LastModified == "":
		return nil
	case !now.Before(e.KeepUntil), !now.Before(e.StoredAt.Add(f.cfg.staleCap)):
		return nil
	}
	return &hit{e: e}
}

func (f *Fetcher) cacheErr(op string, key CacheKey, err error) {
	if err != nil {
		f.cfg.logger.Debug("webfetch: cache "+op+" failed", "target", key.Target, "error", err.Error())
	}
}

// store caches st under the call's key and, when a redirect changed the URL, under the final
// URL's key too. Nothing is stored after cancellation or for no-store responses.
func (f *Fetcher) store(ctx context.Context, c *call, st *stored) {
	if f.cache == nil || st.noStore || ctx.Err() != nil {
		return
	}
	e := newEntry(st, f.now(), f.cfg.cacheTTL, f.cfg.staleCap)
	f.cacheErr("put", c.key, f.cache.Put(ctx, c.key, e))
	if fu, err := url.Parse(st.finalURL); err == nil && wire(fu) != wire(c.typed) && !st.usedLLMS {
		k := c.key
		k.Target = cacheTarget(fu, c.req.WholePage, c.mode, c.req.SaveBinary)
		f.cacheErr("put", k, f.cache.Put(ctx, k, e))
	}
}

// fetchPage fetches the page: https first for a typed http:// URL with the typed URL as the
// fallback, redirects by policy, conditional headers when revalidating a stale entry.
func (f *Fetcher) fetchPage(ctx context.Context, c *call, stale *CacheEntry) (*stored, *Result, error) {
	attempts := []*url.URL{c.target}
	if c.fallback != nil {
		attempts = append(attempts, c.fallback)
	}
	for i, u := range attempts {
		last := i == len(attempts)-1
		upgraded := i == 0 && c.fallback != nil
		resp, hops, blk, err := f.follow(ctx, u, acceptPage, stale, true)
		if err != nil {
			if last || !fallbackable(ctx, err) {
				return nil, nil, err
			}
			f.cfg.logger.Debug("webfetch: https attempt failed; trying the typed http URL", "url", wire(u), "error", err.Error())
			continue
		}
		if blk != nil {
			if !last {
				f.cfg.logger.Debug("webfetch: https attempt ended in a refused redirect; trying the typed http URL", "url", wire(u), "reason", blk.reason)
				continue
			}
			return nil, blockedResult(c, blk, hops, upgraded), nil
		}
		code := resp.StatusCode
		if code == http.StatusNotModified && stale != nil {
			drain(resp)
			st := stale.outcome()
			st.cacheHit, st.cacheRevalidated, st.upstreamStatus = true, true, http.StatusNotModified
			if v := resp.Header.Get("ETag"); v != "" {
				st.etag = v
			}
			if v := resp.Header.Get("Last-Modified"); v != "" {
				st.lastModified = v
			}
			return st, nil, nil
		}
		if code < 200 || code > 299 {
			if !last {
				drain(resp)
				continue
			}
			drain(resp)
			cf := code == http.StatusForbidden && strings.EqualFold(resp.Header.Get("cf-mitigated"), "challenge")
			return nil, nil, &StatusError{Code: code, CloudflareChallenge: cf, URL: resp.Request.URL.String()}
		}
		st, err := f.readBody(ctx, c, resp, hops)
		if err != nil {
			return nil, nil, err
		}
		st.upgraded = upgraded
		return st, nil, nil
	}
	// Not reached: the last attempt always returns.
	return nil, nil, newErr(ErrTransport, c.req.URL, "Fetching %s failed", wire(c.target))
}

// fallbackable reports errors after which the typed http:// URL is tried: failures to
// connect or to complete the TLS handshake. Policy blocks, deadlines and redirect errors are
// final.
func fallbackable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if _, ok := asBlocked(err); ok {
		return false
	}
	return errors.Is(err, ErrTransport)
}

func asBlocked(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) && e.Err == ErrBlocked {
		return e, true
	}
	return nil, false
}

// blockedHop is a redirect the policy refused.
type blockedHop struct {
	hop    Hop
	reason string
}

// follow sends the request and follows redirects hop by hop. It returns the final response
// (body open), the hops followed, or the refused hop.
func (f *Fetcher) follow(ctx context.Context, start *url.URL, accept string, cond *CacheEntry, page bool) (*http.Response, []Hop, *blockedHop, error) {
	cur := start
	hops := []Hop{}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, wire(cur), nil)
		if err != nil {
			return nil, hops, nil, newErr(ErrInvalidURL, cur.String(), "Invalid URL %q: %v", cur.String(), err)
		}
		req.Header.Set("User-Agent", f.cfg.userAgent)
		req.Header.Set("Accept", accept)
		req.Header.Set("Accept-Language", f.cfg.acceptLanguage)
		if cond != nil {
			if cond.ETag != "" {
				req.Header.Set("If-None-Match", cond.ETag)
			}
			if cond.LastModified != "" {
				req.Header.Set("If-Modified-Since", cond.LastModified)
			}
		}
		resp, err := f.client.Do(req)
		if err != nil {
			return nil, hops, nil, transportErr(cur, err)
		}
		code := resp.StatusCode
		if code < 300 || code > 399 || code == http.StatusNotModified {
			return resp, hops, nil, nil
		}
		drain(resp)
		if len(hops) >= maxRedirects {
			return nil, hops, nil, &RedirectError{Chain: hops}
		}
		loc := resp.Header.Get("Location")
		target, perr := cur.Parse(loc)
		if loc == "" || perr != nil {
			return nil, hops, nil, newErr(ErrMissingLocation, cur.String(), "Redirect response missing location header: %d", code)
		}
		target.Fragment, target.RawFragment = "", ""
		if target.Host != "" {
			if h, err := asciiHost(target.Hostname()); err == nil {
				target.Scheme = strings.ToLower(target.Scheme)
				setHost(target, h)
			}
		}
		hop := Hop{From: wire(cur), To: target.String(), Status: code}
		if reason := f.cfg.redirectVerdict(cur, target, page); reason != "" {
			return nil, hops, &blockedHop{hop: hop, reason: reason}, nil
		}
		hops = append(hops, hop)
		cur = target
	}
}

func transportErr(u *url.URL, err error) error {
	if b, ok := asBlocked(err); ok {
		return b
	}
	return &Error{Err: ErrTransport, URL: u.String(), Msg: fmt.Sprintf("Fetching %s failed: %v", wire(u), unwrapURLError(err)), Cause: err}
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// drain discards a little of a body so the connection can be reused, then closes it.
func drain(resp *http.Response) {
	_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	_ = resp.Body.Close()
}

func blockedResult(c *call, b *blockedHop, hops []Hop, upgraded bool) *Result {
	chain := append(append([]Hop{}, hops...), b.hop)
	r := &Result{
		Kind:            KindRedirectBlocked,
		Format:          c.format,
		IncludeMetadata: !c.req.OmitMetadata,
		RequestedURL:    c.req.URL,
		StatusCode:      b.hop.Status,
		Redirects:       chain,
		UpgradedToHTTPS: upgraded,
		ContentLength:   -1,
		Blocked:         &BlockedRedirect{RedirectURL: b.hop.To, Reason: b.reason, Status: b.hop.Status},
	}
	r.Content = messageContent(c.format, strings.Join([]string{
		"Redirect was blocked by policy.",
		"Original URL: " + c.req.URL,
		"Redirect URL: " + b.hop.To,
		"Status: " + itoa(b.hop.Status),
		"Reason: " + b.reason,
		"",
		"Re-run webfetch with the redirect URL to continue.",
	}, "\n"))
	return r
}

func llmsUnavailable(c *call, reason string) *Result {
	r := &Result{
		Kind:            KindLLMSUnavailable,
		Format:          c.format,
		IncludeMetadata: !c.req.OmitMetadata,
		RequestedURL:    c.req.URL,
		LLMSProbeError:  reason,
		PreferLLMS:      LLMSAlways,
		ContentLength:   -1,
	}
	lines := []string{"Required llms.txt content was unavailable.", "Original URL: " + c.req.URL}
	if reason != "" {
		lines = append(lines, "Reason: "+reason)
	}
	r.Content = messageContent(c.format, strings.Join(lines, "\n"))
	return r
}
