package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/harnesskit/harnesskit/webfetch"
)

// The webfetch tool refuses loopback and private addresses; a host that serves local pages
// (here a test server) allows them explicitly.
func Example_webfetch() {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Notes</title></head><body><nav><a href="/">Home</a></nav>
<article><h1>Notes</h1><p>Version 2 adds streaming responses, so clients can read partial output early.</p></article>
</body></html>`)
	}))
	defer web.Close()
	dir, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	args := json.RawMessage(`{"url":"` + web.URL + `/notes","format":"text"}`)

	strict, _ := tools.New(dir)
	defer strict.Close()
	_, err := strict.Tool("webfetch").Call(ctx, args)
	fmt.Println("default:", tools.IsToolError(err), strings.Contains(err.Error(), "Blocked by network policy"))

	local, _ := tools.New(dir, tools.WithWebFetch(webfetch.WithSSRFPolicy(webfetch.SSRFPolicy{AllowLoopback: true})))
	defer local.Close()
	out, err := local.Tool("webfetch").Call(ctx, args)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, content, _ := strings.Cut(out, "---\n\n") // after the metadata block
	fmt.Print(content)
	// Output:
	// default: true true
	// Version 2 adds streaming responses, so clients can read partial output early.
}
