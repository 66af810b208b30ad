package webfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
)

// Issue 23: "--allow-private" (AllowLoopback and AllowPrivate) admitted cloud metadata
// addresses that sit inside private ranges: AWS's IPv6 instance metadata fd00:ec2::254 (a
// unique-local address) and Alibaba's 100.100.100.200 (carrier-grade NAT), in every
// spelling. Metadata stays refused unless an Allow prefix names it.
func TestAllowPrivateNeverAdmitsMetadata(t *testing.T) {
	open := SSRFPolicy{AllowLoopback: true, AllowPrivate: true}
	addrs := []string{
		"fd00:ec2::254", "fd00:ec2::23", "fd00:ec2::253", "100.100.100.200", "169.254.169.254", "169.254.170.2",
		"::ffff:100.100.100.200", "::ffff:6464:64c8", "::100.100.100.200", "64:ff9b::6464:64c8", "64:ff9b::100.100.100.200",
		"64:ff9b:1:6464:0:64c8::", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe", "fd00:ec2:0:0:0:0:0:254",
		"FD00:EC2::254", "fd00:ec2::254%eth0", "0:0:0:0:0:ffff:6464:64c8", "::ffff:0:6464:64c8", "2002:6464:64c8::1",
		"64:ff9b:1:6464:64:c800::",
	}
	for _, a := range addrs {
		t.Run(a, func(t *testing.T) {
			addr := netip.MustParseAddr(a)
			if reason := open.denyReason(addr); reason == "" {
				t.Errorf("%s admitted with AllowLoopback and AllowPrivate", a)
			}
			explicit := open
			explicit.Allow = []netip.Prefix{netip.PrefixFrom(addr, addr.BitLen())}
			if reason := explicit.denyReason(addr); reason != "" {
				t.Errorf("%s refused (%s) although an Allow prefix names it", a, reason)
			}
		})
	}
	// Ordinary private addresses are still admitted.
	for _, a := range []string{"10.1.2.3", "100.64.0.1", "100.100.100.199", "fd00::1", "fd00:ec3::254", "127.0.0.1"} {
		if reason := open.denyReason(netip.MustParseAddr(a)); reason != "" {
			t.Errorf("%s refused (%s) with AllowPrivate", a, reason)
		}
	}
	// End to end: the literal URL, and a name resolving to the address, are never dialled.
	s := newSite(t, plainHandler("secret"))
	for _, u := range []string{"http://[fd00:ec2::254]/latest/meta-data/", "http://100.100.100.200/latest/meta-data/", "http://imds.example/latest/"} {
		res := &fakeResolver{}
		res.set("imds.example", "fd00:ec2::254")
		rt := &routeAll{target: strings.TrimPrefix(s.URL, "http://")}
		f, err := New(WithSSRFPolicy(open), WithResolver(res), withRawDial(rt.dial))
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Fetch(context.Background(), Request{URL: u, LLMS: LLMSNever})
		if !errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), "metadata") {
			t.Errorf("%s: err %v, want ErrBlocked naming cloud metadata", u, err)
		}
		if d := rt.list(); len(d) != 0 {
			t.Errorf("%s: dialled %v", u, d)
		}
	}
}

// fakeWeb is a round tripper standing in for the internet: each host answers from a table.
// It records every request it is asked to send.
type fakeWeb struct {
	mu    sync.Mutex
	hosts map[string]http.HandlerFunc
	sent  []string
}

func (w *fakeWeb) RoundTrip(r *http.Request) (*http.Response, error) {
	w.mu.Lock()
	w.sent = append(w.sent, r.URL.String())
	h := w.hosts[r.URL.Hostname()]
	w.mu.Unlock()
	if h == nil {
		h = func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "SECRET from a refused host") }
	}
	rec := &recorder{header: http.Header{}, code: 200}
	h(rec, r)
	return &http.Response{StatusCode: rec.code, Header: rec.header, Body: io.NopCloser(strings.NewReader(rec.body.String())), Request: r, ContentLength: -1}, nil
}

func (w *fakeWeb) requests() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.sent...)
}

type recorder struct {
	header http.Header
	code   int
	body   strings.Builder
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(code int)        { r.code = code }

// Issue 23: with WithUnsafeTransport only the first URL's host was checked, so with an allow
// pattern "http://**" a redirect to http://localhost:PORT/ was followed. Names and literals
// are checked on every hop.
func TestUnsafeTransportChecksEveryHop(t *testing.T) {
	targets := []string{
		"http://localhost:8080/admin", "http://foo.localhost/", "http://127.0.0.1/", "http://[::1]/",
		"http://169.254.169.254/latest/meta-data/", "http://metadata.google.internal/", "http://10.0.0.1/",
		"http://[::ffff:127.0.0.1]/", "http://2130706433/", "http://0x7f.1/", "http://127.1/", "http://0177.0.0.1/",
		"http://[fd00:ec2::254]/", "http://100.100.100.200/",
	}
	for _, target := range targets {
		t.Run(target, func(t *testing.T) {
			web := &fakeWeb{hosts: map[string]http.HandlerFunc{
				"public.example": func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Location", target)
					w.WriteHeader(http.StatusFound)
				},
			}}
			f, err := New(WithUnsafeTransport(web), WithAllowPatterns("http://**", "https://**"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.Fetch(context.Background(), Request{URL: "http://public.example/start", LLMS: LLMSNever})
			if !errors.Is(err, ErrBlocked) {
				t.Errorf("err %v, want ErrBlocked", err)
			}
			for _, u := range web.requests() {
				if !strings.Contains(u, "public.example") {
					t.Errorf("sent a request to %s", u)
				}
			}
		})
	}
	// The first URL too, in every spelling.
	for _, target := range targets {
		web := &fakeWeb{}
		f, err := New(WithUnsafeTransport(web))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Fetch(context.Background(), Request{URL: target, LLMS: LLMSNever}); !errors.Is(err, ErrBlocked) {
			t.Errorf("%s: err %v, want ErrBlocked", target, err)
		}
		if r := web.requests(); len(r) != 0 {
			t.Errorf("%s: sent %v", target, r)
		}
	}
}

func TestLegacyIPv4(t *testing.T) {
	tests := []struct {
		host, want string
	}{
		{host: "2130706433", want: "127.0.0.1"}, {host: "0x7f000001", want: "127.0.0.1"}, {host: "0x7f.1", want: "127.0.0.1"},
		{host: "0177.0.0.1", want: "127.0.0.1"}, {host: "127.1", want: "127.0.0.1"}, {host: "127.0.1", want: "127.0.0.1"},
		{host: "10.0.0.1.", want: "10.0.0.1"}, {host: "0", want: "0.0.0.0"}, {host: "0x", want: "0.0.0.0"},
		{host: "1684301000", want: "100.100.100.200"}, {host: "100.100.25800", want: "100.100.100.200"},
		{host: "4294967296"}, {host: "256.0.0.1"}, {host: "1.2.3.4.5"}, {host: "08"}, {host: "example.com"},
		{host: "1.2.3.-4"}, {host: "+1"}, {host: ""}, {host: "0x1g"}, {host: "1..2"},
	}
	for _, tc := range tests {
		got, ok := legacyIPv4(tc.host)
		switch {
		case tc.want == "" && ok:
			t.Errorf("legacyIPv4(%q) = %s, want not an address", tc.host, got)
		case tc.want != "" && (!ok || got.String() != tc.want):
			t.Errorf("legacyIPv4(%q) = %s %v, want %s", tc.host, got, ok, tc.want)
		}
	}
}
