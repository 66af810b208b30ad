package webfetch

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
)

// TestAttackCallerClient hands the Fetcher clients that would leak or bypass: a transport
// reading proxies from the environment (pointed at a recording proxy), a cookie jar holding
// a session for the target, and a client redirect policy that follows everything. None of
// them takes effect.
func TestAttackCallerClient(t *testing.T) {
	proxy := newSite(t, plainHandler("proxied"))
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("HTTPS_PROXY", proxy.URL)
	t.Setenv("NO_PROXY", "")
	var s *site
	s = newSite(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/start" {
			redirectTo(s.at("http", "evil.example", "/x"), http.StatusFound)(w, r)
			return
		}
		plainHandler("direct "+words(30))(w, r)
	})
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(s.at("http", "public.example", "/"))
	jar.SetCookies(u, []*http.Cookie{{Name: "sid", Value: "secret"}})
	// http.ProxyFromEnvironment reads the environment once per process, so the proxy is
	// also set directly.
	pu, _ := url.Parse(proxy.URL)
	client := &http.Client{
		Transport:     &http.Transport{Proxy: http.ProxyURL(pu)},
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return nil },
	}
	f, _, res := testFetcher(t, WithHTTPClient(client))
	res.set("evil.example", "127.0.0.1")
	res.set("public.example", "127.0.0.1")
	for _, path := range []string{"/page", "/start"} {
		r := fetch(t, f, Request{URL: s.at("http", "public.example", path), LLMS: LLMSNever})
		if path == "/start" && r.Kind != KindRedirectBlocked {
			t.Errorf("%s: kind %s, want a blocked cross-origin redirect", path, r.Kind)
		}
	}
	if proxy.total() != 0 {
		t.Errorf("the environment proxy saw %d requests", proxy.total())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, q := range s.reqs {
		if q.Header.Get("Cookie") != "" || !strings.HasPrefix(q.Host, "public.example:") {
			t.Errorf("request %s host %s cookie %q", q.URL, q.Host, q.Header.Get("Cookie"))
		}
	}
}
