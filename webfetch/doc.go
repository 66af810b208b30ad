// Package webfetch fetches one URL on behalf of a language model and returns text the model
// can use: the main content of a page as Markdown (or plain text, or HTML) under a short
// metadata block, a documentation site's model-oriented Markdown where it publishes one, or
// a one-line notice for a binary file. It is meant to be handed to an untrusted model: it
// never connects to loopback, private or metadata addresses, follows only same-site
// redirects, bounds every size and every wait, and caches results with working
// revalidation.
//
// Do not use it as a general HTTP client: it sends GET requests only, with a fixed set of
// headers and no cookies or credentials, and it refuses what a browser would allow.
//
// # Life cycle
//
//	New(options) → Fetcher.Fetch(ctx, Request) → *Result → Render(result) → text for the model
//	                                                      ↘ Close()
//
// A [Fetcher] is built once with functional options ([WithHTTPClient], [WithSSRFPolicy],
// [WithCache], [WithClock], [WithLimits], [WithLLMSMode], [WithAllowPatterns],
// [WithBinaryDir], [WithSummarizer], [WithPermission], [WithProgress], …). [New] checks every
// option and names the bad one; it starts no goroutine, reads no file and touches no network.
// A Fetcher is safe for concurrent use; [ContextWithProgress] routes one call's body
// progress to its own callback. [Fetcher.Close] closes idle connections; later
// fetches fail with [ErrClosed]. [Render] is a pure function of the result.
//
// # One fetch
//
//  1. The URL is checked: absolute http or https, a host, no user:password, at most
//     [DefaultMaxURLLength] bytes; the host is converted to ASCII (IDNA). The fragment never
//     goes on the wire and never enters the cache key.
//  2. The permission hook, when configured, is called exactly once, before the cache and
//     before any I/O, with the URLs the call may touch (the https and typed http URL, the
//     llms.txt candidates, the configured allow patterns). Refusal is [ErrPermissionDenied].
//  3. One deadline (Request.Timeout, default 30 s, at most 120 s) bounds everything that
//     follows, including the summarizer. Expiry is [ErrTimeout] "timeout after <ms>ms".
//  4. A fresh cache entry answers without a request. A stale entry with an ETag or
//     Last-Modified is revalidated with If-None-Match / If-Modified-Since on every hop; a 304
//     renews it (cache_revalidated, upstream_status_code 304); a 200 replaces it; an error
//     leaves it in place for the next call.
//  5. llms.txt probing ([LLMSAuto] on documentation hosts, [LLMSAlways], or [LLMSNever]): a
//     root page tries /llms-full.txt then /llms.txt; a deep page tries only its own Markdown
//     variant (path + ".md", or "index.html.md" after a trailing slash) and is never answered
//     with a whole-site file. A candidate is accepted only with a 2xx status, an llms or .md
//     path after redirects, a non-HTML type and body, a body that is text (no undecoded
//     Content-Encoding, text-looking first 2,048 bytes; control characters replaced as in
//     step 8), no login wall and a non-blank body.
//     Probes share a budget of at most 8 s. With LLMSAlways and nothing accepted the result is
//     [KindLLMSUnavailable] and the page is not fetched.
//  6. The page: a typed http:// URL is tried as https:// first, with the typed URL as
//     fallback when the https attempt cannot connect or hand-shake, ends in a refused
//     redirect, or returns a non-2xx status. Redirects are followed by the Fetcher itself,
//     hop by hop, up to 10: same origin, or a same-host http→https upgrade to port 443, or a
//     target matching an allow pattern. A downgrade from https to http, a target with
//     credentials or an overlong target is never followed. A refused hop is a normal result,
//     [KindRedirectBlocked], naming the target so the model can fetch it deliberately. An
//     eleventh redirect is [ErrTooManyRedirects] (a [*RedirectError] with the chain); a
//     non-2xx final status is a [*StatusError] ("Request failed with status code: N"), with a
//     Cloudflare bot challenge named as such and never retried.
//  7. The body: HTML and XHTML by type; text/plain or untyped bodies that start like an
//     HTML document are HTML; other text types (text/*, JSON, XML, YAML, TOML, SVG, …) are
//     returned as text with blank-line runs collapsed; every other type is sniffed from its
//     first 2,048 bytes, and only text-looking bodies are decoded. A body still in a
//     Content-Encoding (anything but the gzip the client asked for) is binary. A body judged
//     binary never reaches the extractor, the renderings or the summarizer; bytes after the
//     first 2,048 of a text-looking body are decoded as text (see the next step for control
//     characters).
//  8. Text is read through a limit of [DefaultMaxTextBytes] (10 MiB, after decompression);
//     a cut body is marked "truncated" and its incomplete last character is dropped. The
//     encoding comes from a byte order mark, the Content-Type charset, a <meta> declaration
//     in the first 1,024 bytes of HTML, valid UTF-8, or a statistical guess (reported with
//     decode_fallback and decode_warning). The output is always valid UTF-8, and control
//     characters other than tab, newline, carriage return and form feed (binary bytes after
//     the sniff window, terminal escape sequences) are replaced with U+FFFD before parsing.
//  9. HTML is parsed once; the main content is found with Mozilla's Readability algorithm
//     (the whole sanitised <body> when Request.WholePage is set or nothing was found) and
//     rendered three ways: Markdown (ATX headings, "-" bullets, fenced code keeping the
//     language, GFM tables, absolute links, images with their alt text, permalink anchors
//     removed), structured plain text, and HTML. Metadata: title, language, byline, site
//     name, published time, canonical URL, and the article's h1–h3 headings.
//  10. Binaries: without Request.SaveBinary nothing beyond the sniff window is downloaded and
//     the result says "<KIND> content detected but not saved."; with it the body (at most
//     [DefaultMaxBinaryBytes]) is saved under the binary directory with a sanitised, unique
//     name, or reported as over the download limit with nothing written.
//  11. The result is cached (unless the response says no-store) under the typed URL and,
//     after a redirect, the final URL. The in-process cache ([NewMemoryCache], the default)
//     charges every byte an entry keeps (renderings, metadata, saved bytes, its key); a
//     host with several processes can share one store instead ([WithCacheStore], [Cache]).
//     Entries are keyed by Request.Tenant, a fingerprint of the Fetcher's policy and the
//     normalised request ([CacheKey]): tenants never read each other's entries, and a
//     Fetcher never reads entries stored by one with another network policy.
//  12. The selected rendering is windowed: at most [DefaultMaxOutputChars] code points from
//     Request.Offset, cut at a line break near the end, with a marker naming next_offset;
//     paging a cached page makes no request.
//  13. With a prompt and a [Summarizer], the summarizer answers from the first 100,000
//     characters of the Markdown (the gate: a non-blank prompt, a summarizer, non-blank
//     content of at least 25 words, counting each CJK character as a word). Any failure —
//     an error, a timeout, a blank answer — returns the content itself with
//     secondary_model_skipped_reason "secondary_model_failed" and the error: a summarizer
//     never fails a fetch and an answer is never cached.
//
// # Results and errors
//
// Results that carry a message instead of content are not errors: [KindRedirectBlocked],
// [KindLLMSUnavailable] and [KindBinary]. [Result.Title] is empty for the first two.
// [Render] writes a "---" block of key: value lines (values JSON-encoded, so network data
// can never add a line; in html format the block is an HTML comment and "--" inside values
// is escaped) followed by the content; Request.OmitMetadata leaves only the content.
//
// Errors wrap one sentinel for errors.Is — [ErrInvalidURL], [ErrInvalidRequest],
// [ErrPermissionDenied], [ErrBlocked], [ErrTimeout], [ErrTooManyRedirects],
// [ErrMissingLocation], [ErrStatus], [ErrTransport], [ErrFilename], [ErrClosed] — and are
// an [*Error], [*StatusError] or [*RedirectError] for errors.As. When the caller's context
// is cancelled the error also wraps its ctx.Err(), and nothing is cached or written.
//
// # Security Considerations
//
// The network policy is enforced where it cannot be bypassed: host names are resolved by the
// Fetcher and every resolved address is checked at the moment of connection by the dialer's
// control hook, for every hop, every retry and every DNS answer, so DNS rebinding and
// redirects into the local network are refused ([ErrBlocked], naming the host, the address
// and its range). Refused by default: loopback, RFC 1918, carrier-grade NAT, link-local
// (including cloud metadata at 169.254.169.254), multicast, documentation, reserved and
// unspecified IPv4; for IPv6 everything outside 2000::/3 plus the special ranges inside it,
// with IPv4-mapped, IPv4-compatible and NAT64 addresses judged by their IPv4 address (for
// the local-use NAT64 prefix 64:ff9b:1::/48, by every position a translator may use). Host
// names such as localhost and metadata.google.internal, and literal addresses in refused
// ranges, are refused before any DNS query. [SSRFPolicy] can admit loopback
// ([AllowLoopbackForTests]), private ranges, or explicit prefixes, deny prefixes, and limit
// ports.
//
// Environment proxy variables are ignored. [WithProxy] sends requests through a proxy; the
// address check then sees the proxy, and enforcing the policy becomes the proxy's job.
// [WithHTTPClient] accepts only an *http.Transport without its own TLS dialer (it is cloned
// and its dialer replaced); any other round tripper must be passed through
// [WithUnsafeTransport], which keeps only the up-front name and literal checks.
//
// Requests carry no cookies, no Authorization and no Referer; URLs with credentials are
// refused. Every size is bounded (URL length, text and binary bytes after decompression,
// output window, summarizer input, redirects, probe time, the call's deadline), and hitting
// a bound is reported, never silent. Files are written only when a request asks to save a
// binary, only inside the binary directory (through an os.Root, under a sanitised name that
// cannot escape it, is never a Windows device name and carries no control or bidirectional
// formatting characters, created exclusively, complete or absent). The package reads no files,
// no environment and no configuration while fetching, and never writes to stdout or stderr:
// the extraction library's log output is discarded, and the package's own diagnostics (why
// an llms.txt candidate was rejected, why the https attempt fell back to http) go to the
// [WithLogger] logger at Debug level.
//
// Cached results are isolated per tenant (Request.Tenant) and per policy, but tenants share
// one cache budget: in a shared store one tenant's fetches can evict another's entries (only
// availability crosses tenants, never content). A host that needs a budget per tenant gives
// each tenant its own store.
//
// Fetched content is data written by a third party. It can contain instructions aimed at the
// model; hosts should present it as untrusted content.
package webfetch
