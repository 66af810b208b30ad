package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/examples/mcpserver"
	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/harnesskit/harnesskit/webfetch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// allowPrivate is what `harnesskit mcp --allow-private` passes to the toolbox.
var allowPrivate = tools.WithWebFetch(webfetch.WithSSRFPolicy(webfetch.SSRFPolicy{AllowLoopback: true, AllowPrivate: true}))

// webServer returns an MCP server over a fresh sample workspace built with opts.
func webServer(t *testing.T, log *slog.Logger, opts ...tools.Option) *mcp.Server {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, sampleFiles)
	box, err := tools.New(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { box.Close() })
	return mcpserver.New(box, &mcpserver.Options{Logger: log})
}

const notesPage = `<html><head><title>Release notes</title></head><body><nav><a href="/">Home</a></nav>
<article><h1>Release notes</h1><p>Version 2 adds streaming responses, so clients can read partial output while the server works.</p>
<pre><code class="language-sh">curl -N https://api.example.com/v2/stream</code></pre></article></body></html>`

// TestWebfetchEndToEnd: webfetch over the in-memory transport. With private addresses
// allowed (as with --allow-private) a page on a loopback test server is fetched; invalid
// input and, by default, private and loopback addresses are tool errors with a message
// the model can act on; the server survives each call.
func TestWebfetchEndToEnd(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/notes" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, notesPage)
	}))
	defer web.Close()
	allowed := connect(t, webServer(t, nil, allowPrivate), nil)
	strict := connect(t, webServer(t, nil), nil)
	tests := []struct {
		name    string
		cs      *mcp.ClientSession
		args    string
		isError bool
		want    []string
	}{
		{name: "valid_private_allowed", cs: allowed, args: `{"url":"` + web.URL + `/notes"}`,
			want: []string{`title: "Release notes"`, "status_code: 200", "```sh\ncurl -N https://api.example.com/v2/stream\n```"}},
		{name: "valid_text", cs: allowed, args: `{"url":"` + web.URL + `/notes","format":"text"}`,
			want: []string{"Version 2 adds streaming responses"}},
		{name: "status_404", cs: allowed, args: `{"url":"` + web.URL + `/gone"}`, isError: true,
			want: []string{"Request failed with status code: 404"}},
		{name: "invalid_format", cs: allowed, args: `{"url":"` + web.URL + `/notes","format":"pdf"}`, isError: true,
			want: []string{"webfetch: invalid arguments", "format", "Expected a JSON object with url (string, required)"}},
		{name: "invalid_missing_url", cs: allowed, args: `{"path":"/notes"}`, isError: true,
			want: []string{"webfetch: invalid arguments", "url (string, required)"}},
		{name: "invalid_scheme", cs: allowed, args: `{"url":"file:///etc/passwd"}`, isError: true,
			want: []string{"file"}},
		{name: "metadata_refused_even_allowed", cs: allowed, args: `{"url":"http://169.254.169.254/latest/meta-data/"}`, isError: true,
			want: []string{"Blocked by network policy", "cloud metadata"}},
		{name: "loopback_refused_by_default", cs: strict, args: `{"url":"` + web.URL + `/notes"}`, isError: true,
			want: []string{"Blocked by network policy", "127.0.0.1"}},
		{name: "private_refused_by_default", cs: strict, args: `{"url":"http://192.168.1.1/admin"}`, isError: true,
			want: []string{"Blocked by network policy", "192.168.1.1", "private"}},
		{name: "metadata_refused_by_default", cs: strict, args: `{"url":"http://169.254.169.254/latest/meta-data/"}`, isError: true,
			want: []string{"Blocked by network policy", "169.254.169.254"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "webfetch", Arguments: json.RawMessage(tc.args)})
			if err != nil {
				t.Fatalf("protocol error %v, want a result", err)
			}
			if res.IsError != tc.isError {
				t.Fatalf("isError=%v, want %v:\n%s", res.IsError, tc.isError, text(res))
			}
			for _, w := range tc.want {
				if !strings.Contains(text(res), w) {
					t.Errorf("%q missing from:\n%s", w, text(res))
				}
			}
			if err := tc.cs.Ping(context.Background(), nil); err != nil {
				t.Fatalf("server gone after the call: %v", err)
			}
		})
	}
}

// bigPage is an HTML page of about 1 MB.
var bigPage = "<html><head><title>Long</title></head><body><article>" +
	strings.Repeat("<p>A paragraph of the long page, repeated many times over.</p>\n", 16_000) + "</article></body></html>"

// TestWebfetchProgress: fetching a 1 MB page with a progress token sends progress
// notifications that grow, up to the page's size, and returns the page.
func TestWebfetchProgress(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", fmt.Sprint(len(bigPage)))
		fmt.Fprint(w, bigPage)
	}))
	defer web.Close()
	type note struct{ done, total float64 }
	notes := make(chan note, 1000)
	cs := connect(t, webServer(t, nil, allowPrivate), &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		if r.Params.ProgressToken == "wf" {
			notes <- note{r.Params.Progress, r.Params.Total}
		}
	}})
	params := &mcp.CallToolParams{Name: "webfetch", Arguments: map[string]any{"url": web.URL + "/long", "format": "text"}}
	params.SetProgressToken("wf")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	if !strings.Contains(text(res), "A paragraph of the long page") {
		t.Fatalf("result lacks the page:\n%.500s", text(res))
	}
	// Notifications may arrive after the result: wait for the one at the page's size.
	var got []note
	for len(got) == 0 || got[len(got)-1].done < float64(len(bigPage)) {
		select {
		case n := <-notes:
			got = append(got, n)
		case <-time.After(30 * time.Second):
			t.Fatalf("progress stopped at %v, want %d bytes", got, len(bigPage))
		}
	}
	if len(got) < 2 {
		t.Fatalf("%d progress notifications for a 1 MB page, want several", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i].done <= got[i-1].done {
			t.Fatalf("progress does not grow: %v", got)
		}
	}
	if last := got[len(got)-1]; last.done != float64(len(bigPage)) || last.total != float64(len(bigPage)) {
		t.Fatalf("last notification %v, want %d of %d", last, len(bigPage), len(bigPage))
	}
}

// TestWebfetchCancel: a page that never finishes; the client cancels the call at its first
// progress notification. The call ends with an error (not a result), the server's handler
// sees the cancellation, the upstream request is closed, and the server keeps serving.
func TestWebfetchCancel(t *testing.T) {
	upstreamGone := make(chan struct{})
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, bigPage[:256<<10])
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			close(upstreamGone)
		case <-time.After(30 * time.Second):
		}
	}))
	defer web.Close()
	logged := make(chan string, 100)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs := connect(t, webServer(t, slog.New(chanHandler(logged)), allowPrivate), &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { cancel() },
	})
	params := &mcp.CallToolParams{Name: "webfetch", Arguments: map[string]any{"url": web.URL + "/endless"}}
	params.SetProgressToken(1)
	start := time.Now()
	res, err := cs.CallTool(ctx, params)
	if err == nil {
		t.Fatalf("cancelled call returned a result: %v", text(res))
	}
	if !errors.Is(err, context.Canceled) {
		t.Logf("cancelled call: %v", err)
	}
	for seen := false; !seen; {
		select {
		case msg := <-logged:
			seen = msg == "tool call cancelled"
		case <-time.After(20 * time.Second):
			t.Fatal("the server never logged the cancellation of the call")
		}
	}
	select {
	case <-upstreamGone:
	case <-time.After(20 * time.Second):
		t.Fatal("the upstream request was not closed after the cancellation")
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("cancellation took %v", d)
	}
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatalf("server gone after a cancel: %v", err)
	}
}
