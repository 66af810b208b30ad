package mcpserver_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/examples/mcpserver"
	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

// TestHTTPTokenBypass: variations on the Authorization header, the token in other
// places, other methods and an empty bearer never get past the token check.
func TestHTTPTokenBypass(t *testing.T) {
	srv, _ := newServer(t)
	ts := httptest.NewServer(mcpserver.Handler(srv, &mcpserver.HTTPOptions{Token: "s3cret"}))
	defer ts.Close()
	for _, tc := range []struct {
		name, method, query string
		auth                []string // Authorization header values, in order
		extra               map[string]string
		want                int
	}{
		{name: "lowercase_scheme", auth: []string{"bearer s3cret"}, want: http.StatusUnauthorized},
		{name: "uppercase_scheme", auth: []string{"BEARER s3cret"}, want: http.StatusUnauthorized},
		{name: "two_spaces", auth: []string{"Bearer  s3cret"}, want: http.StatusUnauthorized},
		{name: "tab", auth: []string{"Bearer\ts3cret"}, want: http.StatusUnauthorized},
		{name: "empty_bearer", auth: []string{"Bearer "}, want: http.StatusUnauthorized},
		{name: "bearer_only", auth: []string{"Bearer"}, want: http.StatusUnauthorized},
		{name: "prefix_of_token", auth: []string{"Bearer s3cre"}, want: http.StatusUnauthorized},
		{name: "token_plus_suffix", auth: []string{"Bearer s3cretX"}, want: http.StatusUnauthorized},
		{name: "basic_scheme", auth: []string{"Basic czNjcmV0"}, want: http.StatusUnauthorized},
		{name: "wrong_then_right", auth: []string{"Bearer nope", "Bearer s3cret"}, want: http.StatusUnauthorized},
		{name: "token_in_query", query: "?token=s3cret&access_token=s3cret", want: http.StatusUnauthorized},
		{name: "token_in_other_header", extra: map[string]string{"X-Auth-Token": "s3cret", "Proxy-Authorization": "Bearer s3cret"}, want: http.StatusUnauthorized},
		{name: "get_without_token", method: "GET", want: http.StatusUnauthorized},
		{name: "delete_without_token", method: "DELETE", extra: map[string]string{"Mcp-Session-Id": "x"}, want: http.StatusUnauthorized},
		{name: "options_without_token", method: "OPTIONS", want: http.StatusUnauthorized},
		{name: "trailing_space_trimmed_by_http", auth: []string{"Bearer s3cret "}, want: http.StatusOK},
		{name: "right_token", auth: []string{"Bearer s3cret"}, want: http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := tc.method
			if method == "" {
				method = "POST"
			}
			req, _ := http.NewRequest(method, ts.URL+tc.query, strings.NewReader(initBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for _, a := range tc.auth {
				req.Header.Add("Authorization", a)
			}
			for k, v := range tc.extra {
				req.Header.Set(k, v)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

// TestHTTPMalformedBodies: garbage on the wire gets an HTTP or JSON-RPC error, and the
// server still serves a well-formed client afterwards.
func TestHTTPMalformedBodies(t *testing.T) {
	srv, _ := newServer(t)
	ts := httptest.NewServer(mcpserver.Handler(srv, nil))
	defer ts.Close()
	for _, body := range []string{
		``, `{`, `null`, `[]`, `[{}]`, `"x"`, `{"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":null}`,
		`{"jsonrpc":"2.0","id":{},"method":"initialize","params":{}}`,
		strings.Repeat("[", 100000),
	} {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatalf("%.40q: %v", body, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && !strings.Contains(string(b), `"error"`) {
			t.Errorf("%.40q: 200 without an error: %.200s", body, b)
		}
	}
	cs := httpClient(t, ts.URL, ts.Client())
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"file_path": "README.md"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "Greets people.") {
		t.Fatalf("after the garbage: %v, %v", res, err)
	}
}

// TestMalformedArgumentsInMemory: arguments of every wrong shape are tool errors naming
// what is expected; the session survives them.
func TestMalformedArgumentsInMemory(t *testing.T) {
	srv, _ := newServer(t)
	cs := connect(t, srv, nil)
	for _, tc := range []struct {
		tool string
		args any
		want string
	}{
		{"read", []any{1}, "must be a JSON object"},
		{"read", "README.md", "must be a JSON object"},
		{"read", 7, "must be a JSON object"},
		{"read", map[string]any{}, "file_path"},
		{"read", map[string]any{"file_path": nil}, "file_path"},
		{"read", map[string]any{"file_path": "README.md", "offset": "2"}, "offset"},
		{"read", map[string]any{"file_path": "README.md", "offset": 1e300}, "offset"},
		{"read", map[string]any{"file_path": "README.md", "limit": 0}, "limit must be at least 1"},
		{"read", map[string]any{"file_path": "README.md", "filepath": "x"}, "filepath"},
		{"grep", map[string]any{"pattern": []any{"a"}}, "pattern"},
		{"grep", map[string]any{"pattern": "a", "ignore_case": "yes"}, "ignore_case"},
		{"grep", map[string]any{"pattern": "(?P<"}, "not a valid Go regular expression"},
		{"glob", map[string]any{"pattern": "/etc/*"}, "not a valid relative glob"},
		{"glob", map[string]any{"pattern": "{"}, "not a valid relative glob"},
		{"apply_patch", map[string]any{"patchText": map[string]any{}}, "patchText"},
		{"apply_patch", map[string]any{"patchText": "no envelope"}, "Begin Patch"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Errorf("%s %v: protocol error %v; want a tool error", tc.tool, tc.args, err)
			continue
		}
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%s %v: got isError=%v %q; want a tool error mentioning %q", tc.tool, tc.args, res.IsError, text(res), tc.want)
		}
	}
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"file_path": "README.md"}}); err != nil || res.IsError {
		t.Fatalf("the session did not survive: %v, %v", res, err)
	}
}

// TestHTTPRebinding: without a token the server relies on being reachable from this
// machine only; a request whose Host is not local (a DNS-rebinding page in a browser) is
// refused.
func TestHTTPRebinding(t *testing.T) {
	srv, _ := newServer(t)
	ts := httptest.NewServer(mcpserver.Handler(srv, nil))
	defer ts.Close()
	for _, tc := range []struct {
		host string
		want int
	}{
		{"attacker.example", http.StatusForbidden},
		{"attacker.example:80", http.StatusForbidden},
		{strings.TrimPrefix(ts.URL, "http://"), http.StatusOK},
	} {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(initBody))
		req.Host = tc.host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Host %q: status %d, want %d", tc.host, resp.StatusCode, tc.want)
		}
	}
}

// TestHTTPShutdownStopsCallInFlight: shutting the server down (built with
// Options.Context) while a slow grep runs cancels the call: ServeHTTP returns well within its grace period and no goroutine is
// left behind (the grep would otherwise run for tens of seconds).
func TestHTTPShutdownStopsCallInFlight(t *testing.T) {
	before := runtime.NumGoroutine()
	dir := t.TempDir()
	line := strings.Repeat("abcdefghij", 1000) + "\n"
	writeFiles(t, dir, map[string]string{"big.txt": strings.Repeat(line, 100)})
	box, err := tools.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	ctx, stop := context.WithCancel(context.Background())
	srv := mcpserver.New(box, &mcpserver.Options{Context: ctx})
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- mcpserver.ServeHTTP(ctx, srv, "127.0.0.1:0", nil, 10*time.Second, func(a net.Addr) { addrc <- a })
	}()
	tr := &http.Transport{}
	cs := httpClient(t, "http://"+(<-addrc).String(), &http.Client{Transport: tr})
	called := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "grep", Arguments: map[string]any{"pattern": "[a-z]{500}Z"}})
		called <- err
	}()
	time.Sleep(300 * time.Millisecond) // the grep is under way
	start := time.Now()
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("ServeHTTP still running 8s after shutdown began")
	}
	t.Logf("shutdown took %v", time.Since(start).Round(time.Millisecond))
	<-called
	cs.Close()
	tr.CloseIdleConnections()
	after := runtime.NumGoroutine()
	for deadline := time.Now().Add(3 * time.Second); after > before && time.Now().Before(deadline); after = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	if after > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines before, %d after shutdown:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}
