package webfetch

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// TestAttackRedirectTargets holds Location values that try to leave the origin, smuggle
// credentials or reach a refused address. Every name resolves to a public address and every
// dial goes to one test server, so a followed hop shows up as a request whose Host is not the
// starting host. No request may leave the origin, and none may carry credentials. A Location
// net/url cannot parse fails inside net/http before the Fetcher sees it (ErrTransport).
func TestAttackRedirectTargets(t *testing.T) {
	locs := []struct {
		name string
		loc  string
	}{
		{name: "protocol_relative", loc: "//evil.example/x"},
		{name: "userinfo_same_host", loc: "http://user:pw@public.example:%PORT%/x"},
		{name: "userinfo_trick", loc: "http://public.example:%PORT%@evil.example/x"},
		{name: "backslash_host", loc: `http://evil.example\@public.example:%PORT%/x`},
		{name: "scheme_only_relative", loc: "https:evil.example/x"},
		{name: "other_scheme", loc: "ftp://public.example/x"},
		{name: "javascript", loc: "javascript:alert(1)"},
		{name: "loopback_literal", loc: "http://127.0.0.1:%PORT%/x"},
		{name: "ipv6_loopback", loc: "http://[::1]:%PORT%/x"},
		{name: "decimal_ip", loc: "http://2130706433:%PORT%/x"},
		{name: "trailing_dot_host", loc: "http://public.example.:%PORT%/x"},
		{name: "uppercase_other_host", loc: "HTTP://EVIL.EXAMPLE:%PORT%/x"},
		{name: "other_port", loc: "http://public.example:1/x"},
		{name: "leading_space", loc: " http://evil.example/x"},
		{name: "tab_in_scheme", loc: "ht\ttp://evil.example/x"},
	}
	for _, tc := range locs {
		t.Run(tc.name, func(t *testing.T) {
			var s *site
			s = newSite(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/start" {
					http.SetCookie(w, &http.Cookie{Name: "sid", Value: "secret"})
					w.Header().Set("Location", strings.ReplaceAll(tc.loc, "%PORT%", s.port()))
					w.WriteHeader(http.StatusFound)
					return
				}
				plainHandler("landed "+words(30))(w, r)
			})
			res := &fakeResolver{}
			for _, h := range []string{"public.example", "public.example.", "evil.example"} {
				res.set(h, "93.184.216.34")
			}
			rt := &routeAll{target: strings.TrimPrefix(s.URL, "http://")}
			f, err := New(WithResolver(res), withRawDial(rt.dial))
			if err != nil {
				t.Fatal(err)
			}
			start := s.at("http", "public.example", "/start")
			r, err := f.Fetch(context.Background(), Request{URL: start, LLMS: LLMSNever})
			if err == nil && r.Kind != KindRedirectBlocked {
				t.Errorf("kind %s, want a blocked redirect or an error", r.Kind)
			}
			if err != nil && !errors.Is(err, ErrBlocked) && !errors.Is(err, ErrMissingLocation) && !errors.Is(err, ErrStatus) && !errors.Is(err, ErrTransport) {
				t.Errorf("err %v", err)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			want := "public.example:" + s.port()
			for _, q := range s.reqs {
				if q.Host != want {
					t.Errorf("request reached host %q %s", q.Host, q.URL)
				}
				for _, h := range []string{"Authorization", "Cookie", "Proxy-Authorization"} {
					if v := q.Header.Get(h); v != "" {
						t.Errorf("request to %s carried %s: %q", q.URL, h, v)
					}
				}
			}
		})
	}
}
