package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"

	"github.com/harnesskit/harnesskit/webfetch"
)

// demoResolver sends every host name of the demo to the local test server.
type demoResolver struct{}

func (demoResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

const demoLLMS = `# Example Docs

> Everything a model needs to use the Example API.

## Guides
- [Install](https://docs.example.test/guide/install): get the client running
- [Streaming](https://docs.example.test/guide/streaming): read partial answers
`

const demoPost = `<!doctype html><html lang="en"><head><title>Streaming is here | Example Blog</title></head><body>
<header><nav><a href="/">Home</a> · <a href="/blog">Blog</a> · <a href="/pricing">Pricing</a> · <a href="/login">Log in</a></nav></header>
<aside><h3>Popular</h3><ul><li><a href="/a">Ten tips</a></li><li><a href="/b">Our roadmap</a></li></ul></aside>
<main><article><h1>Streaming is here</h1>
<p>Version 2 of the Example API streams answers: clients read partial output while the server is still working on the rest.</p>
<p>Streaming uses server-sent events, so any HTTP client can consume it without a new library. Send the same request as before with <code>stream: true</code>.</p>
<pre><code class="language-sh">curl -N https://api.example.test/v2/answers -d '{"stream":true}'</code></pre>
<p>The batch endpoint is deprecated; the jobs API replaces it and supports retries and cancellation.</p>
</article></main>
<footer><p>© Example Inc. · <a href="/privacy">Privacy</a> · <a href="/terms">Terms</a> · Subscribe to our newsletter</p></footer>
</body></html>`

// webfetchStep serves a small site from a local test server and fetches from it the way a
// model would: a docs site's llms.txt, a blog post with navigation and footer around the
// article, a redirect to another site, and a private address. Loopback is allowed explicitly
// for the test server; every other local or private address stays refused.
func webfetchStep(ctx context.Context, e *env) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/llms-full.txt", func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Host, "docs.") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, demoLLMS)
	})
	mux.HandleFunc("/blog/streaming", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, demoPost)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://elsewhere.example/landing", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	_, port, _ := net.SplitHostPort(u.Host)
	f, err := webfetch.New(webfetch.AllowLoopbackForTests(), webfetch.WithResolver(demoResolver{}))
	if err != nil {
		return err
	}
	defer f.Close()
	show := func(what, rawURL string, trim int) error {
		full := strings.Replace(rawURL, "PORT", port, 1)
		e.printf("%s\n$ webfetch %s\n", what, rawURL)
		r, err := f.Fetch(ctx, webfetch.Request{URL: full})
		if err != nil {
			e.printf("  error: %s\n\n", strings.ReplaceAll(err.Error(), ":"+port, ":PORT"))
			return nil
		}
		out := strings.ReplaceAll(webfetch.Render(r), ":"+port, ":PORT")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if trim > 0 && len(lines) > trim {
			lines = append(lines[:trim], fmt.Sprintf("… (%d more lines)", len(lines)-trim))
		}
		for _, l := range lines {
			e.printf("%s\n", strings.TrimRight("  | "+l, " "))
		}
		e.printf("\n")
		return nil
	}
	if err := show("A docs site's root page: its llms-full.txt answers instead of the HTML.", "http://docs.example.test:PORT/", 0); err != nil {
		return err
	}
	if err := show("A blog post: only the article comes back, without navigation, sidebar or footer.", "http://blog.example.test:PORT/blog/streaming", 0); err != nil {
		return err
	}
	if err := show("A redirect to another site is reported, not followed.", "http://blog.example.test:PORT/moved", 0); err != nil {
		return err
	}
	return show("A private address is refused before any connection.", "http://10.0.0.7/admin", 0)
}
