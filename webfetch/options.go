package webfetch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// Defaults.
const (
	DefaultMaxTextBytes         = 10 << 20
	DefaultMaxBinaryBytes       = 10 << 20
	DefaultMaxOutputChars       = 100_000
	DefaultMaxSummaryInputChars = 100_000
	DefaultMaxURLLength         = 2048
	DefaultMaxHeadings          = 12
	DefaultProbeBudget          = 8 * time.Second
	DefaultTimeout              = 30 * time.Second
	DefaultMaxTimeout           = 120 * time.Second
	DefaultCacheBytes           = 50 << 20
	DefaultCacheTTL             = 15 * time.Minute
	DefaultStaleCap             = 24 * time.Hour
	DefaultSummaryTimeout       = 30 * time.Second
	DefaultAcceptLanguage       = "en;q=0.8,*;q=0.5"
	// DefaultUserAgent names the product honestly.
	DefaultUserAgent = "harnesskit-webfetch/" + Version + " (+https://github.com/harnesskit/harnesskit)"
	// Version is the version reported in the default User-Agent.
	Version = "0.1"
)

const (
	defaultMaxHeadings = DefaultMaxHeadings
	maxRedirects       = 10
	sniffWindow        = 2048
	metadataOnlyCharge = 1024
)

// Limits bounds every size and wait. Zero fields take the defaults.
type Limits struct {
	MaxTextBytes         int64         // text body bytes read (after decompression); default 10 MiB
	MaxBinaryBytes       int64         // binary bytes downloaded with SaveBinary; default 10 MiB
	MaxOutputChars       int           // window size in code points; default 100,000; -1 = unlimited
	MaxSummaryInputChars int           // summarizer input in code points; default 100,000
	MaxURLLength         int           // default 2,048 bytes
	MaxHeadings          int           // default 12
	ProbeBudget          time.Duration // all llms probes together; default 8 s
	DefaultTimeout       time.Duration // default 30 s
	MaxTimeout           time.Duration // default 120 s
}

func (l Limits) withDefaults() Limits {
	if l.MaxTextBytes == 0 {
		l.MaxTextBytes = DefaultMaxTextBytes
	}
	if l.MaxBinaryBytes == 0 {
		l.MaxBinaryBytes = DefaultMaxBinaryBytes
	}
	if l.MaxOutputChars == 0 {
		l.MaxOutputChars = DefaultMaxOutputChars
	}
	if l.MaxSummaryInputChars == 0 {
		l.MaxSummaryInputChars = DefaultMaxSummaryInputChars
	}
	if l.MaxURLLength == 0 {
		l.MaxURLLength = DefaultMaxURLLength
	}
	if l.MaxHeadings == 0 {
		l.MaxHeadings = DefaultMaxHeadings
	}
	if l.ProbeBudget == 0 {
		l.ProbeBudget = DefaultProbeBudget
	}
	if l.DefaultTimeout == 0 {
		l.DefaultTimeout = DefaultTimeout
	}
	if l.MaxTimeout == 0 {
		l.MaxTimeout = DefaultMaxTimeout
	}
	return l
}

func (l Limits) validate() error {
	switch {
	case l.MaxTextBytes < 0:
		return optionErr("WithLimits", "MaxTextBytes %d is negative", l.MaxTextBytes)
	case l.MaxBinaryBytes < 0:
		return optionErr("WithLimits", "MaxBinaryBytes %d is negative", l.MaxBinaryBytes)
	case l.MaxOutputChars < -1:
		return optionErr("WithLimits", "MaxOutputChars %d must be positive or -1 (unlimited)", l.MaxOutputChars)
	case l.MaxSummaryInputChars < 0:
		return optionErr("WithLimits", "MaxSummaryInputChars %d is negative", l.MaxSummaryInputChars)
	case l.MaxURLLength < 0:
		return optionErr("WithLimits", "MaxURLLength %d is negative", l.MaxURLLength)
	case l.MaxHeadings < 0:
		return optionErr("WithLimits", "MaxHeadings %d is negative", l.MaxHeadings)
	case l.ProbeBudget < 0, l.DefaultTimeout < 0, l.MaxTimeout < 0:
		return optionErr("WithLimits", "durations must not be negative")
	}
	return nil
}

type config struct {
	client         *http.Client
	unsafeRT       http.RoundTripper
	proxy          func(*http.Request) (*url.URL, error)
	policy         SSRFPolicy
	resolver       Resolver
	rawDial        dialFunc
	allow          []string
	cacheBytes     int64
	cacheTTL       time.Duration
	staleCap       time.Duration
	noCache        bool
	store          Cache
	fingerprint    string
	clock          Clock
	limits         Limits
	llms           LLMSMode
	docsHosts      []string
	binaryDir      string
	summarizer     Summarizer
	summaryTimeout time.Duration
	userAgent      string
	acceptLanguage string
	permission     PermissionFunc
	logger         *slog.Logger
	progress       ProgressFunc
	errs           []error
}

// GoString makes configurations readable in test failures.
func (c *config) GoString() string {
	return fmt.Sprintf("config{policy:%+v allow:%q cache:%d/%s llms:%q binaryDir:%q ua:%q}",
		c.policy, c.allow, c.cacheBytes, c.cacheTTL, c.llms, c.binaryDir, c.userAgent)
}

// Option configures a Fetcher. Options are checked in [New].
type Option func(*config)

// WithHTTPClient uses c's Transport settings (TLS configuration, timeouts, connection pool).
// The Transport must be nil or an *http.Transport without DialTLS/DialTLSContext hooks: it is
// cloned, its dialer is replaced by the guarded one and its Proxy cleared (unless [WithProxy]).
// c's CheckRedirect and Jar are ignored: redirects are followed by the Fetcher's own policy
// and no cookies are kept. Use [WithUnsafeTransport] for any other round tripper.
func WithHTTPClient(c *http.Client) Option { return func(o *config) { o.client = c } }

// WithUnsafeTransport sends requests through rt with no dial-time address check; host names
// and IP literals are still checked before each request. Intended for hosts that enforce
// their own egress policy (for example a sandboxed proxy).
func WithUnsafeTransport(rt http.RoundTripper) Option {
	return func(o *config) { o.unsafeRT = rt }
}

// WithProxy routes requests through a proxy. The dial-time check then sees the proxy's
// address, not the target's: SSRF enforcement moves to the proxy. Environment proxy variables
// are ignored unless passed here (for example http.ProxyFromEnvironment).
func WithProxy(fn func(*http.Request) (*url.URL, error)) Option {
	return func(o *config) { o.proxy = fn }
}

// WithSSRFPolicy replaces the network policy.
func WithSSRFPolicy(p SSRFPolicy) Option { return func(o *config) { o.policy = p } }

// AllowLoopbackForTests admits loopback addresses (127.0.0.0/8, ::1) and the name localhost,
// so an httptest server can be reached. Private and link-local addresses stay refused.
func AllowLoopbackForTests() Option { return func(o *config) { o.policy.AllowLoopback = true } }

// WithResolver replaces DNS resolution (default net.DefaultResolver). Every address it
// returns is still checked when dialled.
func WithResolver(r Resolver) Option { return func(o *config) { o.resolver = r } }

// WithAllowPatterns lets cross-origin redirects reach targets matching one of the doublestar
// patterns, matched against "scheme://host[:port]/path" (lower-case scheme and host, default
// port omitted, no query). Patterns never allow an https-to-http downgrade or credentials, and
// do not apply to llms.txt probes. An invalid pattern fails New.
func WithAllowPatterns(patterns ...string) Option {
	return func(o *config) { o.allow = append(o.allow, patterns...) }
}

// WithCache sets the cache budget in bytes and the freshness TTL.
func WithCache(maxBytes int64, ttl time.Duration) Option {
	return func(o *config) {
		o.cacheBytes, o.cacheTTL = maxBytes, ttl
		if maxBytes < 0 || ttl < 0 {
			o.errs = append(o.errs, optionErr("WithCache", "budget %d and TTL %s must not be negative", maxBytes, ttl))
		}
	}
}

// WithoutCache disables the cache. It wins over [WithCache] and [WithCacheStore].
func WithoutCache() Option { return func(o *config) { o.noCache = true } }

// WithCacheStore keeps results in c instead of the in-process LRU, for example a store
// shared by several host processes. WithCache's byte budget then does not apply (the store
// keeps its own); its TTL does, as does [WithStaleCap]. Entries are keyed by
// Request.Tenant, a fingerprint of this Fetcher's policy and the normalised request (see
// [CacheKey]), so tenants and differently configured Fetchers never read each other's
// entries; they do share the store's budget.
func WithCacheStore(c Cache) Option {
	return func(o *config) {
		o.store = c
		if c == nil {
			o.errs = append(o.errs, optionErr("WithCacheStore", "the cache is nil (use WithoutCache to disable caching)"))
		}
	}
}

// WithStaleCap sets how long a stale entry is kept for revalidation (default 24 h).
func WithStaleCap(d time.Duration) Option { return func(o *config) { o.staleCap = d } }

// WithClock injects the clock used for cache freshness and generated file names.
func WithClock(c Clock) Option { return func(o *config) { o.clock = c } }

// WithLimits sets size and time limits; zero fields keep their defaults.
func WithLimits(l Limits) Option { return func(o *config) { o.limits = l } }

// WithLLMSMode sets the default llms.txt mode for requests that leave it empty.
func WithLLMSMode(m LLMSMode) Option { return func(o *config) { o.llms = m } }

// WithDocsHosts adds hosts treated as documentation sites in LLMSAuto: exact host names or
// "*.suffix" entries.
func WithDocsHosts(hosts ...string) Option {
	return func(o *config) { o.docsHosts = append(o.docsHosts, hosts...) }
}

// WithBinaryDir sets where saved binaries are written (default
// <os.TempDir()>/harnesskit-webfetch). Nothing is created until a binary is saved.
func WithBinaryDir(dir string) Option { return func(o *config) { o.binaryDir = dir } }

// WithSummarizer enables the secondary model for requests with a prompt.
func WithSummarizer(s Summarizer) Option { return func(o *config) { o.summarizer = s } }

// WithSummaryTimeout bounds one summarizer call (default 30 s, never beyond the call deadline).
func WithSummaryTimeout(d time.Duration) Option { return func(o *config) { o.summaryTimeout = d } }

// WithUserAgent replaces the User-Agent header.
func WithUserAgent(ua string) Option { return func(o *config) { o.userAgent = ua } }

// WithAcceptLanguage replaces the Accept-Language header.
func WithAcceptLanguage(v string) Option { return func(o *config) { o.acceptLanguage = v } }

// WithPermission installs the host's permission hook, called exactly once per Fetch before
// the cache lookup and before any network I/O.
func WithPermission(fn PermissionFunc) Option { return func(o *config) { o.permission = fn } }

// WithLogger routes diagnostics (Debug level) to l. The default discards them.
func WithLogger(l *slog.Logger) Option { return func(o *config) { o.logger = l } }

// WithProgress reports body download progress for long fetches.
func WithProgress(fn ProgressFunc) Option { return func(o *config) { o.progress = fn } }

func (c *config) finish() error {
	if len(c.errs) > 0 {
		return c.errs[0]
	}
	if err := c.limits.validate(); err != nil {
		return err
	}
	c.limits = c.limits.withDefaults()
	for _, p := range c.allow {
		if !doublestar.ValidatePattern(p) {
			return optionErr("WithAllowPatterns", "invalid pattern %q", p)
		}
	}
	if c.cacheBytes == 0 {
		c.cacheBytes = DefaultCacheBytes
	}
	if c.cacheTTL == 0 {
		c.cacheTTL = DefaultCacheTTL
	}
	if c.staleCap == 0 {
		c.staleCap = DefaultStaleCap
	}
	if c.staleCap < 0 {
		return optionErr("WithStaleCap", "%s is negative", c.staleCap)
	}
	if c.clock == nil {
		c.clock = wallClock{}
	}
	switch c.llms {
	case "":
		c.llms = LLMSAuto
	case LLMSAuto, LLMSAlways, LLMSNever:
	default:
		return optionErr("WithLLMSMode", "unknown mode %q (use %s)", c.llms, quoteList("auto", "always", "never"))
	}
	for _, h := range c.docsHosts {
		if strings.TrimPrefix(h, "*.") == "" {
			return optionErr("WithDocsHosts", "empty host %q", h)
		}
	}
	if c.binaryDir == "" {
		c.binaryDir = filepath.Join(os.TempDir(), "harnesskit-webfetch")
	}
	if !filepath.IsAbs(c.binaryDir) {
		abs, err := filepath.Abs(c.binaryDir)
		if err != nil {
			return optionErr("WithBinaryDir", "%v", err)
		}
		c.binaryDir = abs
	}
	if c.summaryTimeout == 0 {
		c.summaryTimeout = DefaultSummaryTimeout
	}
	if c.summaryTimeout < 0 {
		return optionErr("WithSummaryTimeout", "%s is negative", c.summaryTimeout)
	}
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent
	}
	if c.acceptLanguage == "" {
		c.acceptLanguage = DefaultAcceptLanguage
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if c.resolver == nil {
		c.resolver = net.DefaultResolver
	}
	if c.rawDial == nil {
		c.rawDial = newRawDialer(&c.policy)
	}
	c.fingerprint = c.policyFingerprint()
	return nil
}

// policyFingerprint hashes everything in the configuration that changes what a fetch may
// reach or what it stores, so that differently configured Fetchers sharing one cache never
// share entries. Not in it: TTL, stale cap, output window, timeouts, the summarizer.
func (c *config) policyFingerprint() string {
	h := sha256.New()
	p := c.policy
	fmt.Fprintf(h, "%s\x00loopback=%v private=%v allow=%v deny=%v ports=%v\x00", entryMagic, p.AllowLoopback, p.AllowPrivate, p.Allow, p.Deny, p.Ports)
	fmt.Fprintf(h, "proxy=%v unsafe=%v\x00", c.proxy != nil, c.unsafeRT != nil)
	fmt.Fprintf(h, "allow=%q\x00docs=%q\x00", c.allow, c.docsHosts)
	l := c.limits
	fmt.Fprintf(h, "text=%d binary=%d headings=%d url=%d\x00", l.MaxTextBytes, l.MaxBinaryBytes, l.MaxHeadings, l.MaxURLLength)
	fmt.Fprintf(h, "ua=%q lang=%q dir=%q\x00", c.userAgent, c.acceptLanguage, c.binaryDir)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// buildClient returns the client used for every request: redirects are returned to the
// caller, there is no cookie jar, and every connection goes through the guarded dialer.
func (c *config) buildClient() (*http.Client, error) {
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if c.unsafeRT != nil {
		return &http.Client{Transport: c.unsafeRT, CheckRedirect: noRedirect}, nil
	}
	var base *http.Transport
	if c.client != nil && c.client.Transport != nil {
		t, ok := c.client.Transport.(*http.Transport)
		if !ok {
			return nil, optionErr("WithHTTPClient", "transport %T would bypass the address check; pass it through WithUnsafeTransport if that is intended", c.client.Transport)
		}
		//nolint:staticcheck // DialTLS is checked because it would bypass the guard.
		if t.DialTLSContext != nil || t.DialTLS != nil {
			return nil, optionErr("WithHTTPClient", "transport sets DialTLS/DialTLSContext, which would bypass the address check")
		}
		base = t.Clone()
	} else {
		base = http.DefaultTransport.(*http.Transport).Clone()
		base.TLSHandshakeTimeout = 10 * time.Second
	}
	g := &guardedDialer{policy: &c.policy, resolver: c.resolver, dial: c.rawDial}
	base.DialContext = g.DialContext
	base.Dial = nil //nolint:staticcheck // cleared so only the guarded dialer is used
	base.Proxy = c.proxy
	if base.TLSHandshakeTimeout == 0 || base.TLSHandshakeTimeout > 10*time.Second {
		base.TLSHandshakeTimeout = 10 * time.Second
	}
	return &http.Client{Transport: base, CheckRedirect: noRedirect}, nil
}

var _ io.Closer = (*Fetcher)(nil)
