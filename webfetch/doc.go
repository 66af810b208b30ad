// Package webfetch fetches a URL on behalf of a model and returns its main content as
// Markdown with metadata.
//
// Contract: requests are SSRF-safe by default (the dialer checks every resolved address),
// redirects follow an explicit policy, llms.txt and Markdown variants are probed where a
// site offers them, binaries are detected rather than rendered, responses are cached with
// byte accounting, and an optional secondary model may summarise the page with the raw
// content as the fallback. Time comes from an injected clock and the network from the
// caller's *http.Client.
//
// The behaviour is specified in the project's webfetch specification; the package gets its
// code with the webfetch issue.
package webfetch
