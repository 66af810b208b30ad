package webfetch

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// fakeResolver answers from a table; unknown names resolve to 127.0.0.1. Answers may be a
// sequence: each lookup of a name takes the next answer (the last one repeats).
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr
	lookups []string
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups = append(r.lookups, host)
	seq := r.answers[host]
	if len(seq) == 0 {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	a := seq[0]
	if len(seq) > 1 {
		r.answers[host] = seq[1:]
	}
	return a, nil
}

func (r *fakeResolver) set(host string, answers ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.answers == nil {
		r.answers = map[string][][]netip.Addr{}
	}
	for _, a := range answers {
		var addrs []netip.Addr
		for s := range strings.SplitSeq(a, ",") {
			addrs = append(addrs, netip.MustParseAddr(s))
		}
		r.answers[host] = append(r.answers[host], addrs)
	}
}

// site is a test server that counts requests per path and keeps their headers.
type site struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
	reqs []*http.Request
}

func newSite(t *testing.T, h http.HandlerFunc) *site {
	return startSite(t, false, h)
}

func newTLSSite(t *testing.T, h http.HandlerFunc) *site {
	return startSite(t, true, h)
}

func startSite(t *testing.T, tls bool, h http.HandlerFunc) *site {
	t.Helper()
	s := &site{hits: map[string]int{}}
	wrapped := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.reqs = append(s.reqs, r.Clone(context.Background()))
		s.mu.Unlock()
		h(w, r)
	})
	if tls {
		s.Server = httptest.NewTLSServer(wrapped)
	} else {
		s.Server = httptest.NewServer(wrapped)
	}
	t.Cleanup(s.Close)
	return s
}

func (s *site) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *site) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.hits {
		n += c
	}
	return n
}

func (s *site) last() *http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		return nil
	}
	return s.reqs[len(s.reqs)-1]
}

// port is the server's port.
func (s *site) port() string {
	u, _ := url.Parse(s.URL)
	return u.Port()
}

// at returns a URL on this server under another host name (resolved by fakeResolver).
func (s *site) at(scheme, host, path string) string {
	return scheme + "://" + net.JoinHostPort(host, s.port()) + path
}

// testFetcher builds a Fetcher with loopback allowed, a fake clock and a fake resolver.
func testFetcher(t *testing.T, opts ...Option) (*Fetcher, *fakeClock, *fakeResolver) {
	t.Helper()
	clk := newClock()
	res := &fakeResolver{}
	all := append([]Option{AllowLoopbackForTests(), WithClock(clk), WithResolver(res), WithBinaryDir(privateDir(t))}, opts...)
	f, err := New(all...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f, clk, res
}

func fetch(t *testing.T, f *Fetcher, req Request) *Result {
	t.Helper()
	r, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatalf("Fetch(%s): %v", req.URL, err)
	}
	return r
}

func htmlPage(title, body string) string {
	return "<!doctype html><html><head><title>" + title + "</title></head><body>" + body + "</body></html>"
}

// article is a page with enough text for main-content extraction.
func article(title, text string) string {
	p := strings.Repeat("<p>"+text+" This paragraph has enough words to be kept as the main content of the page, like a real article would.</p>", 6)
	return htmlPage(title, "<nav><ul><li>Home</li><li>Menu</li></ul></nav><article><h1>"+title+"</h1>"+p+"</article><footer>Copyright footer</footer>")
}

func words(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = "word"
	}
	return strings.Join(w, " ")
}

// privateDir is a new empty directory that passes the binary directory's checks (t.TempDir
// makes its directories 0755).
func privateDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}
