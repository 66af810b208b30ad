package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/examples/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func httpClient(t testing.TB, url string, hc *http.Client) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestHTTPToken(t *testing.T) {
	srv, _ := newServer(t)
	ts := httptest.NewServer(mcpserver.Handler(srv, &mcpserver.HTTPOptions{Token: "s3cret"}))
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	for _, tc := range []struct {
		name, auth string
		want       int
	}{
		{name: "no_token", auth: "", want: http.StatusUnauthorized},
		{name: "wrong_token", auth: "Bearer nope", want: http.StatusUnauthorized},
		{name: "token_without_scheme", auth: "s3cret", want: http.StatusUnauthorized},
		{name: "right_token", auth: "Bearer s3cret", want: http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
			if tc.want == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("401 without a Bearer challenge: %q", resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
	// A real client with the token lists the tools; without it, it cannot connect.
	cs := httpClient(t, ts.URL, &http.Client{Transport: bearer{"s3cret", http.DefaultTransport}})
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) != len(expectedTools()) {
		t.Fatalf("ListTools with the token: %v, %v", res, err)
	}
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "x", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, nil); err == nil {
		t.Fatal("a client without the token connected")
	}
}

func TestListenAddr(t *testing.T) {
	for _, tc := range []struct {
		name, addr, token string
		ok                bool
	}{
		{name: "loopback_v4", addr: "127.0.0.1:8765", ok: true},
		{name: "loopback_v4_other", addr: "127.0.0.2:0", ok: true},
		{name: "loopback_v6", addr: "[::1]:8765", ok: true},
		{name: "localhost", addr: "localhost:8765", ok: true},
		{name: "all_interfaces", addr: ":8765", ok: false},
		{name: "any_v4", addr: "0.0.0.0:8765", ok: false},
		{name: "any_v6", addr: "[::]:8765", ok: false},
		{name: "lan", addr: "192.168.1.10:8765", ok: false},
		{name: "hostname", addr: "example.com:8765", ok: false},
		{name: "lan_with_token", addr: "0.0.0.0:8765", token: "t", ok: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := mcpserver.ListenAddr(tc.addr, tc.token)
			if (err == nil) != tc.ok || (!tc.ok && !errors.Is(err, mcpserver.ErrNotLoopback)) {
				t.Fatalf("ListenAddr(%q, %q) = %v, want ok=%v", tc.addr, tc.token, err, tc.ok)
			}
		})
	}
	if err := mcpserver.ListenAddr("nonsense", ""); err == nil || errors.Is(err, mcpserver.ErrNotLoopback) {
		t.Fatalf("a malformed address: %v", err)
	}
	// ServeHTTP refuses at start, before listening.
	srv, _ := newServer(t)
	err := mcpserver.ServeHTTP(context.Background(), srv, "0.0.0.0:0", nil, time.Second, func(net.Addr) { t.Error("listened") })
	if !errors.Is(err, mcpserver.ErrNotLoopback) {
		t.Fatalf("ServeHTTP on 0.0.0.0 without a token: %v", err)
	}
}

// TestHTTPLoad: 20 clients make 200 concurrent tool calls over HTTP (with a token); none
// may fail, and once the clients and the server are shut down no goroutine is left.
func TestHTTPLoad(t *testing.T) {
	const clients, perClient = 20, 10
	before := runtime.NumGoroutine()
	srv, _ := newServer(t)
	ctx, stop := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- mcpserver.ServeHTTP(ctx, srv, "127.0.0.1:0", &mcpserver.HTTPOptions{Token: "tok", Logger: slog.New(slog.DiscardHandler)}, 5*time.Second, func(a net.Addr) { addrc <- a })
	}()
	url := "http://" + (<-addrc).String()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	hc := &http.Client{Transport: bearer{"tok", tr}}
	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		sessions[i] = httpClient(t, url, hc)
	}
	start := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	calls := []struct {
		tool string
		args func(i int) map[string]any
	}{
		{"grep", func(i int) map[string]any { return map[string]any{"pattern": "Greet", "limit": i + 1} }},
		{"read", func(i int) map[string]any { return map[string]any{"file_path": "src/greet.go", "limit": i + 1} }},
		{"glob", func(i int) map[string]any { return map[string]any{"pattern": "**", "limit": i + 1} }},
	}
	for c, cs := range sessions {
		for i := range perClient {
			wg.Go(func() {
				k := calls[(c+i)%len(calls)]
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: k.tool, Arguments: k.args(i)})
				if err == nil && res.IsError {
					err = errors.New(text(res))
				}
				if err != nil {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("client %d call %d (%s): %v", c, i, k.tool, err))
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	for _, cs := range sessions {
		cs.Close()
	}
	tr.CloseIdleConnections()
	stop()
	if err := <-done; err != nil {
		t.Errorf("ServeHTTP: %v", err)
	}
	if len(failures) > 0 {
		t.Fatalf("%d of %d calls failed:\n%s", len(failures), clients*perClient, strings.Join(failures, "\n"))
	}
	// Goroutines wind down asynchronously after Close; wait for them, bounded.
	after := runtime.NumGoroutine()
	for deadline := time.Now().Add(5 * time.Second); after > before && time.Now().Before(deadline); after = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	if after > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines before, %d after shutdown:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
	t.Logf("%d calls from %d clients over HTTP in %v (%.0f calls/s); goroutines: %d before, %d after shutdown",
		clients*perClient, clients, elapsed, float64(clients*perClient)/elapsed.Seconds(), before, after)
}
