package webfetch

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/net/idna"
)

func itoa(n int) string { return strconv.Itoa(n) }

// parseTarget validates a URL typed by the model: absolute http(s), a host, no credentials,
// at most maxLen bytes; the host is converted to ASCII.
func parseTarget(raw string, maxLen int) (*url.URL, error) {
	if len(raw) > maxLen {
		return nil, newErr(ErrInvalidURL, "", "Invalid URL: longer than %d characters", maxLen)
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err == nil {
		u.Scheme = strings.ToLower(u.Scheme)
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return nil, newErr(ErrInvalidURL, raw, "Invalid URL %q: use an absolute http:// or https:// URL", raw)
	}
	if u.User != nil {
		return nil, newErr(ErrInvalidURL, raw, "Invalid URL %q: URLs with credentials are not fetched", raw)
	}
	host := u.Hostname()
	if host == "" {
		return nil, newErr(ErrInvalidURL, raw, "Invalid URL %q: use an absolute http:// or https:// URL", raw)
	}
	ascii, err := asciiHost(host)
	if err != nil {
		return nil, newErr(ErrInvalidURL, raw, "Invalid URL %q: the host cannot be converted to ASCII (%v)", raw, err)
	}
	setHost(u, ascii)
	return u, nil
}

func asciiHost(host string) (string, error) {
	if strings.Contains(host, ":") { // IPv6 literal
		return strings.ToLower(host), nil
	}
	a, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return "", err
	}
	return strings.ToLower(a), nil
}

// setHost replaces the host name, keeping the port and dropping a default one.
func setHost(u *url.URL, host string) {
	port := u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	u.Host = host
}

// wire returns the URL as sent: without fragment.
func wire(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}

// withScheme returns a copy of u with another scheme (and the default port dropped).
func withScheme(u *url.URL, scheme string) *url.URL {
	c := *u
	c.Scheme = scheme
	setHost(&c, c.Hostname())
	return &c
}

// origin is scheme://host:port with the default port made explicit.
func origin(u *url.URL) string {
	return u.Scheme + "://" + strings.ToLower(u.Hostname()) + ":" + effectivePort(u)
}

func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// patternForm is the form allow patterns are matched against: scheme://host[:port]/path.
func patternForm(u *url.URL) string {
	c := url.URL{Scheme: u.Scheme, Path: u.EscapedPath()}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" && p != map[string]string{"http": "80", "https": "443"}[u.Scheme] {
		host = net.JoinHostPort(strings.Trim(host, "[]"), p)
	}
	path := c.Path
	if path == "" {
		path = "/"
	}
	return u.Scheme + "://" + host + path
}

// redirect refusal reasons.
const (
	reasonCrossOrigin = "cross-origin redirect"
	reasonDowngrade   = "redirect from https to http"
	reasonCredentials = "redirect target contains credentials"
	reasonTooLong     = "redirect target URL too long"
)

// redirectVerdict decides one hop: "" means follow, else the refusal reason. patterns apply
// only when usePatterns is set (page fetches, not probes).
func (c *config) redirectVerdict(from, to *url.URL, usePatterns bool) string {
	if len(to.String()) > c.limits.MaxURLLength {
		return reasonTooLong
	}
	if to.User != nil {
		return reasonCredentials
	}
	if from.Scheme == "https" && to.Scheme == "http" {
		return reasonDowngrade
	}
	if to.Scheme != "http" && to.Scheme != "https" {
		return reasonCrossOrigin
	}
	if origin(from) == origin(to) {
		return ""
	}
	if from.Scheme == "http" && to.Scheme == "https" && strings.EqualFold(from.Hostname(), to.Hostname()) && effectivePort(to) == "443" {
		return ""
	}
	if usePatterns {
		form := patternForm(to)
		for _, p := range c.allow {
			if ok, _ := doublestar.Match(p, form); ok {
				return ""
			}
		}
	}
	return reasonCrossOrigin
}

// cacheTarget is the typed URL normalised (scheme and host lower-case, default port and
// fragment removed) plus the options that change what is fetched, separated by spaces (a
// URL on the wire has none).
func cacheTarget(u *url.URL, wholePage bool, mode LLMSMode, saveBinary bool) string {
	var b strings.Builder
	b.WriteString(wire(u))
	if wholePage {
		b.WriteString(" whole ")
	} else {
		b.WriteString(" main ")
	}
	b.WriteString(string(mode))
	if saveBinary {
		b.WriteString(" save")
	}
	return b.String()
}

var docsSuffixes = []string{"readthedocs.io", "readthedocs.org", "gitbook.io", "netlify.app", "vercel.app", "docs.rs"}

// docsLike reports documentation hosts: first label docs, developer, dev or wiki; or one of
// the known documentation hosting suffixes at a label boundary; or a configured host.
func (c *config) docsLike(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	first, _, _ := strings.Cut(host, ".")
	switch first {
	case "docs", "developer", "dev", "wiki":
		if strings.Contains(host, ".") {
			return true
		}
	}
	for _, s := range docsSuffixes {
		if host == s || strings.HasSuffix(host, "."+s) {
			return true
		}
	}
	for _, h := range c.docsHosts {
		h = strings.ToLower(h)
		if suffix, ok := strings.CutPrefix(h, "*."); ok {
			if strings.HasSuffix(host, "."+suffix) {
				return true
			}
		} else if host == h {
			return true
		}
	}
	return false
}

func isSiteFile(path string) bool {
	return strings.HasSuffix(path, "/llms.txt") || strings.HasSuffix(path, "/llms-full.txt")
}

// isDirect reports URLs that already name model-oriented Markdown.
func isDirect(u *url.URL) bool {
	return isSiteFile(u.Path) || strings.HasSuffix(u.Path, ".md")
}

func isRoot(u *url.URL) bool {
	return (u.Path == "" || u.Path == "/") && u.RawQuery == ""
}
