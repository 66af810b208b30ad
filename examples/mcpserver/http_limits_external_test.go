package mcpserver_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/examples/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// syncBuffer is a log sink safe for the handler's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const rawInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends one JSON-RPC message and returns the status and the session id the server
// gave (Mcp-Session-Id), draining the body.
func post(t *testing.T, url, session, body string, header map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
}

// open initializes a session over raw HTTP and returns its id, or "" and the status.
func open(t *testing.T, url string) (string, int) {
	t.Helper()
	status, id := post(t, url, "", rawInit, nil)
	if status != http.StatusOK || id == "" {
		return "", status
	}
	if st, _ := post(t, url, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); st != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d", st)
	}
	return id, status
}

func listTools(t *testing.T, url, session string) int {
	t.Helper()
	st, _ := post(t, url, session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil)
	return st
}

func countSessions(srv *mcp.Server) int {
	n := 0
	for range srv.Sessions() {
		n++
	}
	return n
}

// TestHTTPOrigin: a request with an Origin header not on the allowed list is refused with
// 403 and logged (a web page the user visits must not drive the tools); requests without
// one (every non-browser client) and allowed origins are served.
func TestHTTPOrigin(t *testing.T) {
	srv, _ := newServer(t)
	var logs syncBuffer
	h := mcpserver.Handler(srv, &mcpserver.HTTPOptions{AllowedOrigins: []string{"http://localhost:6274"}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ts := httptest.NewServer(h)
	defer ts.Close()
	for _, tc := range []struct {
		name, origin string
		want         int
	}{
		{name: "no_origin", origin: "", want: http.StatusOK},
		{name: "foreign", origin: "https://evil.example", want: http.StatusForbidden},
		{name: "null", origin: "null", want: http.StatusForbidden},
		{name: "allowed", origin: "http://localhost:6274", want: http.StatusOK},
		{name: "allowed_other_case", origin: "HTTP://LocalHost:6274", want: http.StatusOK},
		{name: "allowed_as_prefix", origin: "http://localhost:6274.evil.example", want: http.StatusForbidden},
		{name: "other_port", origin: "http://localhost:6275", want: http.StatusForbidden},
		{name: "own_origin", origin: ts.URL, want: http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := map[string]string{}
			if tc.origin != "" {
				hdr["Origin"] = tc.origin
			}
			if st, _ := post(t, ts.URL, "", rawInit, hdr); st != tc.want {
				t.Fatalf("Origin %q: status %d, want %d", tc.origin, st, tc.want)
			}
		})
	}
	if l := logs.String(); !strings.Contains(l, "refused") || !strings.Contains(l, "evil.example") || !strings.Contains(l, "403") {
		t.Fatalf("refused requests were not logged:\n%s", l)
	}
}

// TestHTTPSessions: at most MaxSessions sessions exist (the next initialize gets 503,
// logged); a session idle for IdleTimeout (measured on the injected clock) is closed and
// its id answers 404; a used session stays; freed places are given to new clients.
func TestHTTPSessions(t *testing.T) {
	srv, _ := newServer(t)
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	var logs syncBuffer
	h := mcpserver.Handler(srv, &mcpserver.HTTPOptions{MaxSessions: 3, IdleTimeout: time.Minute, Now: clock,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ts := httptest.NewServer(h)
	defer ts.Close()
	var ids []string
	for i := range 3 { // N-1, then N
		id, st := open(t, ts.URL)
		if id == "" {
			t.Fatalf("session %d refused: status %d", i+1, st)
		}
		ids = append(ids, id)
	}
	if id, st := open(t, ts.URL); id != "" || st != http.StatusServiceUnavailable { // N+1
		t.Fatalf("a 4th session with MaxSessions 3: id %q, status %d; want 503", id, st)
	}
	if !strings.Contains(logs.String(), "503") {
		t.Fatalf("the refused session was not logged:\n%s", logs.String())
	}
	advance(30 * time.Second)
	if st := listTools(t, ts.URL, ids[0]); st != http.StatusOK {
		t.Fatalf("session 1 in use: status %d", st)
	}
	advance(45 * time.Second) // sessions 2 and 3 idle 75 s, session 1 idle 45 s
	if n := h.Expire(); n != 2 {
		t.Fatalf("Expire closed %d sessions, want 2", n)
	}
	if st := listTools(t, ts.URL, ids[1]); st != http.StatusNotFound {
		t.Fatalf("an expired session answered %d, want 404", st)
	}
	if st := listTools(t, ts.URL, ids[0]); st != http.StatusOK {
		t.Fatalf("the session in use was closed: status %d", st)
	}
	for i := range 2 {
		if id, st := open(t, ts.URL); id == "" {
			t.Fatalf("new session %d after expiry refused: status %d", i+1, st)
		}
	}
	if n := countSessions(srv); n != 3 {
		t.Fatalf("%d sessions on the server, want 3", n)
	}
	// Idle sessions are also expired when a new client comes and the table is full.
	advance(2 * time.Minute)
	if id, st := open(t, ts.URL); id == "" {
		t.Fatalf("a new session when every other one is idle: status %d", st)
	}
	if n := countSessions(srv); n != 1 {
		t.Fatalf("%d sessions on the server after the idle ones were expired, want 1", n)
	}
}

// TestHTTPSessionFlood: a client opening sessions in a loop never gets more than
// MaxSessions of them; every extra one is refused, and memory stays bounded by the cap.
func TestHTTPSessionFlood(t *testing.T) {
	srv, _ := newServer(t)
	h := mcpserver.Handler(srv, &mcpserver.HTTPOptions{MaxSessions: 8})
	ts := httptest.NewServer(h)
	defer ts.Close()
	var wg sync.WaitGroup
	var mu sync.Mutex
	opened, refused := 0, 0
	for range 8 {
		wg.Go(func() {
			for range 25 {
				st, id := post(t, ts.URL, "", rawInit, nil)
				mu.Lock()
				switch {
				case st == http.StatusOK && id != "":
					opened++
				case st == http.StatusServiceUnavailable:
					refused++
				default:
					t.Errorf("status %d", st)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if opened != 8 || refused != 192 || countSessions(srv) > 8 {
		t.Fatalf("opened %d, refused %d, %d sessions live; want 8, 192, at most 8", opened, refused, countSessions(srv))
	}
}

// TestHTTPBogusFirstRequests: requests without a session that are not an initialize (the
// SDK opens and at once closes a session for each) never fill the session table.
func TestHTTPBogusFirstRequests(t *testing.T) {
	srv, _ := newServer(t)
	h := mcpserver.Handler(srv, &mcpserver.HTTPOptions{MaxSessions: 4})
	ts := httptest.NewServer(h)
	defer ts.Close()
	for range 50 {
		post(t, ts.URL, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil)
		post(t, ts.URL, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":"nonsense"}`, nil)
		post(t, ts.URL, "", `not json`, nil)
	}
	for i := range 4 {
		if id, st := open(t, ts.URL); id == "" {
			t.Fatalf("session %d refused after the bogus requests: status %d", i+1, st)
		}
	}
	if n := countSessions(srv); n != 4 {
		t.Fatalf("%d sessions live, want 4", n)
	}
}
