package webfetch

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// dualSite serves plain HTTP and TLS on one port (the first byte decides), so an https
// attempt and its http fallback reach the same handler. r.TLS tells them apart.
type dualSite struct {
	*site
	addr string
}

type peekConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekConn) Read(b []byte) (int, error) { return c.r.Read(b) }

type dualListener struct {
	net.Listener
	cfg *tls.Config
}

func (l *dualListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	first, err := br.Peek(1)
	_ = c.SetReadDeadline(time.Time{})
	pc := &peekConn{Conn: c, r: br}
	if err == nil && first[0] == 0x16 {
		return tls.Server(pc, l.cfg), nil
	}
	return pc, nil
}

func newDualSite(t *testing.T, h http.HandlerFunc) (*dualSite, *http.Client) {
	t.Helper()
	certSrc := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(certSrc.Close)
	cfg := certSrc.TLS.Clone()
	cfg.NextProtos = []string{"http/1.1"}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &site{hits: map[string]int{}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.reqs = append(s.reqs, r.Clone(context.Background()))
		s.mu.Unlock()
		h(w, r)
	}))
	srv.Listener = &dualListener{Listener: ln, cfg: cfg}
	srv.Start()
	s.Server = srv
	t.Cleanup(srv.Close)
	return &dualSite{site: s, addr: ln.Addr().String()}, certSrc.Client()
}

// routeAll dials every address to target, recording what the guard let through.
type routeAll struct {
	mu     sync.Mutex
	target string
	dialed []string
}

func (r *routeAll) dial(ctx context.Context, network, address string) (net.Conn, error) {
	r.mu.Lock()
	r.dialed = append(r.dialed, address)
	r.mu.Unlock()
	var d net.Dialer
	return d.DialContext(ctx, network, r.target)
}

func (r *routeAll) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.dialed...)
}

func withRawDial(fn dialFunc) Option { return func(c *config) { c.rawDial = fn } }

func redirectTo(loc string, code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", loc)
		w.WriteHeader(code)
	}
}

func TestEdgeRedirects(t *testing.T) {
	t.Run("E17_allow_patterns", func(t *testing.T) {
		if _, err := New(WithAllowPatterns("https://x/[")); err == nil || !strings.Contains(err.Error(), "https://x/[") {
			t.Fatalf("New with invalid pattern: %v", err)
		}
		d, client := newDualSite(t, func(w http.ResponseWriter, r *http.Request) {
			switch r.Host {
			case "www.example.com":
				to := map[string]string{"/docs": "https://docs.example.com/page", "/cdn": "https://cdn.example.com/file.txt", "/other": "https://other.example.com/x"}[r.URL.Path]
				redirectTo(to, http.StatusFound)(w, r)
			default:
				plainHandler("arrived at "+r.Host+" "+words(30))(w, r)
			}
		})
		rt := &routeAll{target: d.addr}
		f, _, _ := testFetcher(t, WithHTTPClient(client), withRawDial(rt.dial),
			WithAllowPatterns("https://docs.example.com/**", "https://cdn.example.com/**", "not-a-url"))
		for _, p := range []string{"/docs", "/cdn"} {
			r := fetch(t, f, Request{URL: "https://www.example.com" + p})
			if r.Kind != KindContent || len(r.Redirects) != 1 {
				t.Errorf("%s: kind %v chain %v", p, r.Kind, r.Redirects)
			}
		}
		r := fetch(t, f, Request{URL: "https://www.example.com/other"})
		if r.Kind != KindRedirectBlocked {
			t.Errorf("/other: kind %v, want blocked (not-a-url matches nothing)", r.Kind)
		}
	})
	t.Run("E18_same_origin_followed", func(t *testing.T) {
		s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/start" {
				redirectTo("/next", http.StatusFound)(w, r)
				return
			}
			plainHandler("next page "+words(30))(w, r)
		})
		r := fetch(t, f0(t), Request{URL: s.URL + "/start"})
		if !strings.HasSuffix(r.FinalURL, "/next") || len(r.Redirects) != 1 || r.Redirects[0].Status != 302 {
			t.Errorf("final %q chain %v", r.FinalURL, r.Redirects)
		}
	})
	t.Run("E19_cross_origin_blocked", func(t *testing.T) {
		other := newSite(t, plainHandler("other"))
		s := newSite(t, redirectTo(other.at("http", "other.test", "/x"), http.StatusFound))
		r := fetch(t, f0(t), Request{URL: s.URL + "/start"})
		if r.Kind != KindRedirectBlocked || r.Blocked.Status != 302 || len(r.Redirects) != 1 || r.Title != "" {
			t.Fatalf("kind %v blocked %+v chain %v", r.Kind, r.Blocked, r.Redirects)
		}
		if !strings.Contains(r.Content, "Reason: cross-origin redirect") || !strings.Contains(r.Content, "Redirect URL: "+other.at("http", "other.test", "/x")) {
			t.Errorf("content %q", r.Content)
		}
		if other.total() != 0 {
			t.Errorf("target received %d requests", other.total())
		}
	})
	t.Run("E20_cross_origin_allowed_by_pattern", func(t *testing.T) {
		other := newSite(t, plainHandler("other "+words(30)))
		s := newSite(t, redirectTo(other.at("http", "cdn.test", "/x"), http.StatusFound))
		f, _, _ := testFetcher(t, WithAllowPatterns("http://cdn.test:*/**"))
		r := fetch(t, f, Request{URL: s.URL + "/start"})
		if r.Kind != KindContent || other.count("/x") != 1 {
			t.Errorf("kind %v target hits %d", r.Kind, other.count("/x"))
		}
	})
	t.Run("E42_ten_redirects_ok_eleven_fail", func(t *testing.T) {
		s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
			var n, limit int
			fmt.Sscanf(r.URL.Path, "/r/%d/%d", &n, &limit)
			if n < limit {
				redirectTo(fmt.Sprintf("/r/%d/%d", n+1, limit), http.StatusFound)(w, r)
				return
			}
			plainHandler("done "+words(30))(w, r)
		})
		f := f0(t)
		r := fetch(t, f, Request{URL: s.URL + "/r/0/10"})
		if len(r.Redirects) != 10 || r.StatusCode != 200 {
			t.Errorf("chain %d status %d", len(r.Redirects), r.StatusCode)
		}
		_, err := f.Fetch(context.Background(), Request{URL: s.URL + "/r/0/11"})
		var re *RedirectError
		if !errors.As(err, &re) || len(re.Chain) != 10 || err.Error() != "Too many redirects (exceeded 10)" {
			t.Errorf("err %v", err)
		}
	})
	t.Run("E43_missing_location_and_bare_304", func(t *testing.T) {
		s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/300" {
				w.WriteHeader(300)
				return
			}
			w.WriteHeader(http.StatusNotModified)
		})
		f := f0(t)
		_, err := f.Fetch(context.Background(), Request{URL: s.URL + "/300"})
		if !errors.Is(err, ErrMissingLocation) || err.Error() != "Redirect response missing location header: 300" {
			t.Errorf("300: %v", err)
		}
		_, err = f.Fetch(context.Background(), Request{URL: s.URL + "/304"})
		var se *StatusError
		if !errors.As(err, &se) || se.Code != 304 || err.Error() != "Request failed with status code: 304" {
			t.Errorf("304: %v", err)
		}
	})
	t.Run("E44_credentials_in_target", func(t *testing.T) {
		s := newSite(t, redirectTo("https://user:pw@example.com/x", http.StatusFound))
		r := fetch(t, f0(t), Request{URL: s.URL + "/"})
		if r.Kind != KindRedirectBlocked || !strings.Contains(r.Content, "Reason: redirect target contains credentials") {
			t.Errorf("kind %v content %q", r.Kind, r.Content)
		}
	})
	t.Run("E45_other_port_is_cross_origin", func(t *testing.T) {
		other := newSite(t, plainHandler("x"))
		s := newSite(t, redirectTo(other.URL+"/x", http.StatusFound))
		r := fetch(t, f0(t), Request{URL: s.URL + "/"})
		if r.Kind != KindRedirectBlocked || r.Blocked.Reason != reasonCrossOrigin || other.total() != 0 {
			t.Errorf("kind %v blocked %+v", r.Kind, r.Blocked)
		}
	})
	t.Run("E46_https_handshake_fails_then_http", func(t *testing.T) {
		s := newSite(t, plainHandler("plain "+words(30)))
		r := fetch(t, f0(t), Request{URL: s.URL + "/p"})
		if r.UpgradedToHTTPS || !strings.HasPrefix(r.FinalURL, "http://") {
			t.Errorf("upgraded %v final %q", r.UpgradedToHTTPS, r.FinalURL)
		}
	})
	t.Run("E47_https_404_then_http", func(t *testing.T) {
		d, client := newDualSite(t, func(w http.ResponseWriter, r *http.Request) {
			if r.TLS != nil {
				http.NotFound(w, r)
				return
			}
			plainHandler("plain "+words(30))(w, r)
		})
		f, _, _ := testFetcher(t, WithHTTPClient(client))
		r := fetch(t, f, Request{URL: "http://" + d.addr + "/p"})
		if r.UpgradedToHTTPS || !strings.HasPrefix(r.FinalURL, "http://") || d.count("/p") != 2 {
			t.Errorf("upgraded %v final %q hits %d", r.UpgradedToHTTPS, r.FinalURL, d.count("/p"))
		}
	})
	t.Run("E48_status_500_not_cached", func(t *testing.T) {
		s := newTLSSite(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) })
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()))
		for range 2 {
			_, err := f.Fetch(context.Background(), Request{URL: s.URL + "/"})
			var se *StatusError
			if !errors.As(err, &se) || se.Code != 500 || err.Error() != "Request failed with status code: 500" {
				t.Fatalf("err %v", err)
			}
		}
		if s.total() != 2 {
			t.Errorf("%d requests, want 2 (nothing cached)", s.total())
		}
	})
	t.Run("E82_https_to_http_downgrade_blocked_despite_pattern", func(t *testing.T) {
		d, client := newDualSite(t, func(w http.ResponseWriter, r *http.Request) {
			if r.TLS != nil {
				redirectTo("http://example.com/plain", http.StatusFound)(w, r)
				return
			}
			plainHandler("plain")(w, r)
		})
		rt := &routeAll{target: d.addr}
		f, _, _ := testFetcher(t, WithHTTPClient(client), withRawDial(rt.dial), WithAllowPatterns("http://example.com/**"))
		r := fetch(t, f, Request{URL: "https://example.com/secure"})
		if r.Kind != KindRedirectBlocked || r.Blocked.Reason != reasonDowngrade {
			t.Errorf("kind %v blocked %+v", r.Kind, r.Blocked)
		}
	})
	t.Run("E83_http_to_https_same_host_followed", func(t *testing.T) {
		d, client := newDualSite(t, func(w http.ResponseWriter, r *http.Request) {
			if r.TLS == nil {
				redirectTo("https://example.com/", http.StatusMovedPermanently)(w, r)
				return
			}
			plainHandler("secure "+words(30))(w, r)
		})
		rt := &routeAll{target: d.addr}
		f, _, _ := testFetcher(t, WithHTTPClient(client), withRawDial(rt.dial))
		start, _ := parseTarget("http://example.com/", 2048)
		resp, hops, blk, err := f.follow(context.Background(), start, acceptPage, nil, true)
		if err != nil || blk != nil || len(hops) != 1 || resp.Request.URL.Scheme != "https" {
			t.Fatalf("err %v blocked %+v hops %v", err, blk, hops)
		}
		drain(resp)
	})
	t.Run("E86_redirect_target_too_long", func(t *testing.T) {
		s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
			redirectTo("/"+strings.Repeat("a", 2100), http.StatusFound)(w, r)
		})
		r := fetch(t, f0(t), Request{URL: s.URL + "/"})
		if r.Kind != KindRedirectBlocked || r.Blocked.Reason != reasonTooLong {
			t.Errorf("kind %v blocked %+v", r.Kind, r.Blocked)
		}
	})
	t.Run("E94_cloudflare_challenge", func(t *testing.T) {
		s := newTLSSite(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("cf-mitigated", "challenge")
			w.WriteHeader(403)
		})
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()))
		_, err := f.Fetch(context.Background(), Request{URL: s.URL + "/"})
		var se *StatusError
		if !errors.As(err, &se) || !se.CloudflareChallenge || !strings.Contains(err.Error(), "Cloudflare bot challenge") {
			t.Fatalf("err %v", err)
		}
		if s.total() != 1 {
			t.Errorf("%d requests, want 1", s.total())
		}
	})
}

// f0 is a plain test fetcher.
func f0(t *testing.T) *Fetcher {
	f, _, _ := testFetcher(t)
	return f
}

func TestEdgeSSRF(t *testing.T) {
	blockedCases := []struct {
		name    string
		url     string
		resolve map[string]string
		wantMsg string
	}{
		{name: "E71_loopback_without_allowance", url: "http://127.0.0.1:%s/", wantMsg: "127.0.0.1 is a refused address (loopback)"},
		{name: "E72_name_resolving_to_private", url: "http://intranet.example:%s/", resolve: map[string]string{"intranet.example": "10.0.0.5"}, wantMsg: "intranet.example resolves to 10.0.0.5 (private network)"},
		{name: "E73_metadata_address", url: "http://169.254.169.254/latest/meta-data/", wantMsg: "169.254.169.254 is a refused address (link-local)"},
		{name: "E74_ipv6_loopback", url: "http://[::1]:%s/", wantMsg: "(loopback)"},
		{name: "E74_ipv4_mapped_loopback", url: "http://[::ffff:127.0.0.1]:%s/", wantMsg: "(loopback)"},
		{name: "E74_nat64_private", url: "http://[64:ff9b::a00:1]/", wantMsg: "(private network)"},
		{name: "E75_localhost", url: "http://localhost:%s/", wantMsg: "local host name"},
		{name: "E75_sub_localhost", url: "http://foo.localhost/", wantMsg: "local host name"},
	}
	for _, tc := range blockedCases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, plainHandler("secret"))
			res := &fakeResolver{}
			for h, a := range tc.resolve {
				res.set(h, a)
			}
			rt := &routeAll{target: strings.TrimPrefix(s.URL, "http://")}
			f, err := New(WithResolver(res), withRawDial(rt.dial))
			if err != nil {
				t.Fatal(err)
			}
			u := tc.url
			if strings.Contains(u, "%s") {
				u = fmt.Sprintf(u, s.port())
			}
			_, err = f.Fetch(context.Background(), Request{URL: u})
			if !errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("err %v, want ErrBlocked containing %q", err, tc.wantMsg)
			}
			if !strings.Contains(err.Error(), "webfetch only connects to public internet addresses") {
				t.Errorf("message %q lacks the advice", err.Error())
			}
			if d := rt.list(); len(d) != 0 || s.total() != 0 {
				t.Errorf("dialled %v, server saw %d requests", d, s.total())
			}
			if strings.Contains(tc.name, "localhost") && len(res.lookups) != 0 {
				t.Errorf("DNS lookups %v for a local name", res.lookups)
			}
		})
	}
	rebind := []struct {
		name    string
		second  string
		wantMsg string
	}{
		{name: "E76_rebinding_to_loopback_on_second_hop", second: "127.0.0.1", wantMsg: "(loopback)"},
		{name: "E77_same_origin_hop_resolves_private", second: "10.9.8.7", wantMsg: "(private network)"},
	}
	for _, tc := range rebind {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/first" {
					w.Header().Set("Connection", "close")
					redirectTo("/second", http.StatusFound)(w, r)
					return
				}
				plainHandler("internal secret")(w, r)
			})
			res := &fakeResolver{}
			// The https attempt takes the first answer and fails its handshake against the
			// plain server; the http fetch takes the second; its redirect the third.
			res.set("public.example", "93.184.216.34", "93.184.216.34", tc.second)
			rt := &routeAll{target: strings.TrimPrefix(s.URL, "http://")}
			f, err := New(WithResolver(res), withRawDial(rt.dial))
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.Fetch(context.Background(), Request{URL: "http://public.example/first", LLMS: LLMSNever})
			if !errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("err %v", err)
			}
			for _, a := range rt.list() {
				if !strings.HasPrefix(a, "93.184.216.34:") {
					t.Errorf("dialled %s", a)
				}
			}
			if s.count("/first") != 1 || s.count("/second") != 0 {
				t.Errorf("hits /first %d /second %d, want 1 and 0", s.count("/first"), s.count("/second"))
			}
		})
	}
	t.Run("E78_environment_proxy_ignored", func(t *testing.T) {
		t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
		t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
		s := newSite(t, plainHandler("direct "+words(30)))
		r := fetch(t, f0(t), Request{URL: s.URL + "/"})
		if r.Kind != KindContent || s.count("/") != 1 {
			t.Errorf("kind %v hits %d", r.Kind, s.count("/"))
		}
	})
	t.Run("E79_loopback_allowed_private_still_blocked", func(t *testing.T) {
		s := newSite(t, plainHandler("ok "+words(30)))
		f := f0(t)
		fetch(t, f, Request{URL: s.URL + "/"})
		if _, err := f.Fetch(context.Background(), Request{URL: "http://10.0.0.1/"}); !errors.Is(err, ErrBlocked) {
			t.Errorf("10.0.0.1: %v", err)
		}
	})
	t.Run("E80_port_policy", func(t *testing.T) {
		rt := &routeAll{target: "127.0.0.1:1"}
		res := &fakeResolver{}
		res.set("example.com", "93.184.216.34")
		f, err := New(WithSSRFPolicy(SSRFPolicy{Ports: []uint16{443}}), withRawDial(rt.dial), WithResolver(res))
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Fetch(context.Background(), Request{URL: "https://example.com:8443/"})
		if !errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), "port 8443") || len(rt.list()) != 0 {
			t.Errorf("err %v dialled %v", err, rt.list())
		}
	})
	t.Run("E81_transport_checks", func(t *testing.T) {
		tr := &http.Transport{DialTLSContext: func(ctx context.Context, n, a string) (net.Conn, error) { return nil, errors.New("x") }}
		if _, err := New(WithHTTPClient(&http.Client{Transport: tr})); err == nil {
			t.Error("DialTLSContext accepted")
		}
		rt := roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, errors.New("x") })
		if _, err := New(WithHTTPClient(&http.Client{Transport: rt})); err == nil {
			t.Error("custom round tripper accepted")
		}
		if _, err := New(WithUnsafeTransport(rt)); err != nil {
			t.Errorf("WithUnsafeTransport: %v", err)
		}
	})
}

func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Errorf("%s holds %d entries, want none", dir, len(ents))
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestEdgeDeadlines(t *testing.T) {
	t.Run("E90_stall_before_headers", func(t *testing.T) {
		release := make(chan struct{})
		s := newTLSSite(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		})
		defer close(release)
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()))
		_, err := f.Fetch(context.Background(), Request{URL: s.URL + "/", Timeout: 150 * time.Millisecond})
		if !errors.Is(err, ErrTimeout) || err.Error() != "timeout after 150ms" {
			t.Fatalf("err %v", err)
		}
		n := mem(f).len()
		if n != 0 {
			t.Errorf("%d cache entries after a timeout", n)
		}
	})
	t.Run("E91_cancel_mid_body", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		s := newTLSSite(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			w.Write([]byte("%PDF-1.4 " + strings.Repeat("x", 4096)))
			w.(http.Flusher).Flush()
			cancel()
			<-r.Context().Done()
		})
		dir := t.TempDir()
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithBinaryDir(dir))
		_, err := f.Fetch(ctx, Request{URL: s.URL + "/doc.pdf", SaveBinary: true})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want context.Canceled", err)
		}
		n := mem(f).len()
		if n != 0 {
			t.Errorf("%d cache entries after cancellation", n)
		}
		assertEmptyDir(t, dir)
	})
}
