package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPStdio drives "harnesskit mcp" over pipes with the SDK's client: list the tools,
// call one, disconnect; the command exits 0 and logs only to stderr.
func TestMCPStdio(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\nbeta\n"), 0o644)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run(context.Background(), []string{"mcp", "--root", dir}, inR, outW, &stderr)
		outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) != wantToolCount() {
		t.Fatalf("ListTools: %v, %v", res, err)
	}
	call, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "grep", Arguments: map[string]any{"pattern": "bet"}})
	if err != nil || call.IsError || !strings.Contains(call.Content[0].(*mcp.TextContent).Text, "a.txt:\n  2: beta") {
		t.Fatalf("grep: %v, %+v", err, call)
	}
	cs.Close()
	inW.Close()
	if c := <-code; c != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", c, stderr.String())
	}
	if !strings.Contains(stderr.String(), "serving MCP over stdio") {
		t.Fatalf("stderr lacks the start line:\n%s", stderr.String())
	}
}

func TestMCPUsageErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "no_root", args: []string{"mcp"}, want: "--root DIR is required"},
		{name: "missing_root", args: []string{"mcp", "--root", filepath.Join(dir, "nope")}, want: "root"},
		{name: "http_all_interfaces_without_token", args: []string{"mcp", "--root", dir, "--http", "0.0.0.0:0"}, want: "refusing to serve HTTP on 0.0.0.0:0, a non-loopback address, without a token"},
		{name: "http_empty_host_without_token", args: []string{"mcp", "--root", dir, "--http", ":8765"}, want: "non-loopback"},
		{name: "bad_log_level", args: []string{"mcp", "--root", dir, "--log-level", "loud"}, want: "--log-level"},
		{name: "stray_argument", args: []string{"mcp", "--root", dir, "extra"}, want: "unexpected argument"},
	}
	t.Setenv("HARNESSKIT_MCP_TOKEN", "")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if c := run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr); c != exitUsage {
				t.Fatalf("exit %d, want %d", c, exitUsage)
			}
			if stdout.Len() != 0 || !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("stdout %q, stderr %q, want %q on stderr", stdout.String(), stderr.String(), tc.want)
			}
		})
	}
}

// TestMCPHTTP starts "harnesskit mcp --http 127.0.0.1:0 --token …", reads the address it
// prints on stderr, lists the tools with the token, gets 401 without it, and stops on
// cancel with exit 0.
func TestMCPHTTP(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errR, errW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"mcp", "--root", dir, "--http", "127.0.0.1:0", "--token", "tok"}, strings.NewReader(""), io.Discard, errW)
		errW.Close()
	}()
	var url string
	sc := bufio.NewScanner(errR)
	for sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), "over Streamable HTTP at "); ok {
			url = after
			break
		}
	}
	go io.Copy(io.Discard, errR)
	if url == "" {
		t.Fatal("no address printed on stderr")
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without the token: %d, want 401", resp.StatusCode)
	}
	tr := &http.Transport{}
	hc := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer tok")
		return tr.RoundTrip(r)
	})}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cli-http", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil || len(res.Tools) != wantToolCount() {
		t.Fatalf("ListTools: %v, %v", res, err)
	}
	cs.Close()
	tr.CloseIdleConnections()
	cancel()
	if c := <-code; c != exitOK {
		t.Fatalf("exit %d after cancel", c)
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestMCPMessages: the messages a newcomer meets first. A missing --root is one line
// naming the flag (not the whole usage); the refusal of a reachable address names both
// ways to give a token; -h lists every tool the server can serve.
func TestMCPMessages(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HARNESSKIT_MCP_TOKEN", "")
	t.Run("missing_root_one_line", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if c := run(context.Background(), []string{"mcp"}, strings.NewReader(""), &stdout, &stderr); c != exitUsage {
			t.Fatalf("exit %d", c)
		}
		got := strings.TrimSuffix(stderr.String(), "\n")
		if strings.Contains(got, "\n") || !strings.Contains(got, "--root") || !strings.Contains(got, "-h") {
			t.Fatalf("want one line naming --root and -h, got:\n%s", stderr.String())
		}
	})
	t.Run("non_loopback_names_token_ways", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if c := run(context.Background(), []string{"mcp", "--root", dir, "--http", "0.0.0.0:8765"}, strings.NewReader(""), &stdout, &stderr); c != exitUsage {
			t.Fatalf("exit %d", c)
		}
		for _, w := range []string{"--token", "HARNESSKIT_MCP_TOKEN", "127.0.0.1"} {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("the refusal does not name %s:\n%s", w, stderr.String())
			}
		}
	})
	t.Run("usage_lists_every_tool", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		run(context.Background(), []string{"mcp", "-h"}, strings.NewReader(""), &stdout, &stderr)
		usage := stdout.String() + stderr.String()
		for _, name := range []string{"apply_patch", "edit", "multi_edit", "read", "grep", "glob", "webfetch", "ast_grep_search", "ast_grep_replace"} {
			if !strings.Contains(usage, name) {
				t.Errorf("mcp -h does not mention %s", name)
			}
		}
	})
}

// TestMCPTokenFromEnvironment: a token read from HARNESSKIT_MCP_TOKEN (no --token) is said
// at start, so that a server is never protected, or exposed, without its user knowing.
func TestMCPTokenFromEnvironment(t *testing.T) {
	t.Setenv("HARNESSKIT_MCP_TOKEN", "from-env")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errR, errW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"mcp", "--root", dir, "--http", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, errW)
		errW.Close()
	}()
	var lines []string
	sc := bufio.NewScanner(errR)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.Contains(sc.Text(), "over Streamable HTTP at ") {
			break
		}
	}
	go io.Copy(io.Discard, errR)
	cancel()
	<-code
	if got := strings.Join(lines, "\n"); !strings.Contains(got, "HARNESSKIT_MCP_TOKEN") || strings.Contains(got, "from-env") {
		t.Fatalf("the start lines must say the token comes from HARNESSKIT_MCP_TOKEN, without printing it:\n%s", got)
	}
}
