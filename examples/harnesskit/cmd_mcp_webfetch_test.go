package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPAllowPrivate: "harnesskit mcp" serves webfetch; a page on a loopback server is
// refused by default (a tool error naming the policy) and fetched with --allow-private.
func TestMCPAllowPrivate(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Local page</title></head><body><article><h1>Local page</h1>
<p>This page is served on the loopback interface for the test of the MCP command.</p></article></body></html>`)
	}))
	defer web.Close()
	for _, tc := range []struct {
		name    string
		flags   []string
		isError bool
		want    string
	}{
		{name: "default_refuses_loopback", isError: true, want: "Blocked by network policy"},
		{name: "allow_private_fetches", flags: []string{"--allow-private"}, want: `title: "Local page"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			var stderr bytes.Buffer
			code := make(chan int, 1)
			args := append([]string{"mcp", "--root", t.TempDir()}, tc.flags...)
			go func() {
				code <- run(context.Background(), args, inR, outW, &stderr)
				outW.Close()
			}()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, nil).
				Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "webfetch", Arguments: map[string]any{"url": web.URL + "/page"}})
			if err != nil {
				t.Fatal(err)
			}
			got := res.Content[0].(*mcp.TextContent).Text
			if res.IsError != tc.isError || !strings.Contains(got, tc.want) {
				t.Errorf("isError=%v text:\n%s\nwant isError=%v and %q", res.IsError, got, tc.isError, tc.want)
			}
			cs.Close()
			inW.Close()
			if c := <-code; c != exitOK {
				t.Fatalf("exit %d, stderr:\n%s", c, stderr.String())
			}
		})
	}
}
