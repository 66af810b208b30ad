package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

const webfetchPage = `<!doctype html><html lang="en"><head><title>Release notes</title></head><body>
<nav><a href="/">Home</a> <a href="/blog">Blog</a></nav>
<article><h1>Release notes</h1>
<p>Version 2 adds streaming responses. Clients can read partial output while the server is still working on the rest of the answer.</p>
<p>Version 2 also removes the deprecated batch endpoint; use the <a href="/docs/jobs">jobs API</a> instead, which supports retries and cancellation.</p>
<pre><code class="language-sh">curl -N https://api.example.com/v2/stream</code></pre>
<p>Upgrade by changing the base URL of your client. Nothing else changes for existing callers of the single-request endpoints.</p>
</article><footer>Copyright Example Inc.</footer></body></html>`

func webfetchServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/notes", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(webfetchPage))
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://elsewhere.example/page", http.StatusFound)
	})
	mux.HandleFunc("/logo.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n0000"))
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func TestWebfetchCLI(t *testing.T) {
	s := webfetchServer(t)
	tests := []struct {
		name     string
		args     []string
		wantCode int
	}{
		{name: "markdown", args: []string{"--allow-private", s.URL + "/notes"}, wantCode: exitOK},
		{name: "text", args: []string{"--allow-private", "--format", "text", s.URL + "/notes"}, wantCode: exitOK},
		{name: "raw", args: []string{"--allow-private", "--raw", "--format", "text", s.URL + "/notes"}, wantCode: exitOK},
		{name: "redirect_blocked", args: []string{"--allow-private", s.URL + "/away"}, wantCode: exitOK},
		{name: "binary", args: []string{"--allow-private", s.URL + "/logo.png"}, wantCode: exitOK},
		{name: "refused_loopback", args: []string{s.URL + "/notes"}, wantCode: exitRefused},
		{name: "invalid_url", args: []string{"ftp://example.com/x"}, wantCode: exitRefused},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(t.Context(), append([]string{"webfetch"}, tc.args...), strings.NewReader(""), &out, &errb)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tc.wantCode, out.String(), errb.String())
			}
			got := strings.ReplaceAll(out.String(), strings.TrimPrefix(s.URL, "http://"), "SERVER")
			checkGolden(t, filepath.Join("testdata", "webfetch", tc.name+".golden"), got)
		})
	}
}

func TestWebfetchCLIJSON(t *testing.T) {
	s := webfetchServer(t)
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"webfetch", "--allow-private", "--json", s.URL + "/notes"}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res map[string]any
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res["title"] != "Release notes" || res["kind"] != "content" || !strings.Contains(res["content"].(string), "```sh") {
		t.Errorf("result %v", res)
	}
}

func TestWebfetchCLIUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"--format", "pdf", "https://x.org"}, {"--llms", "maybe", "https://x.org"}, {"a", "b"}, {"extract"}} {
		var out, errb bytes.Buffer
		if code := run(t.Context(), append([]string{"webfetch"}, args...), strings.NewReader(""), &out, &errb); code != exitUsage || errb.Len() == 0 {
			t.Errorf("%q: exit %d stderr %q", args, code, errb.String())
		}
	}
}

func TestWebfetchExtractCLI(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(t.Context(), []string{"webfetch", "extract", "--url", "https://example.com/notes", "--json"}, strings.NewReader(webfetchPage), &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"title", "byline", "lang", "markdown", "text", "metadata"} {
		if _, ok := got[k]; !ok {
			t.Errorf("field %q missing", k)
		}
	}
	if got["lang"] != "en" || !strings.Contains(got["markdown"].(string), "[jobs API](https://example.com/docs/jobs)") {
		t.Errorf("output %v", got)
	}
	checkGolden(t, filepath.Join("testdata", "webfetch", "extract.golden"), out.String())
}

// Issue 23: the CLI's refusal of a loopback or private address did not say how to allow it.
// It names --allow-private where that flag would help, and only there (metadata stays
// refused with it).
func TestWebfetchCLIRefusalNamesAllowPrivate(t *testing.T) {
	s := webfetchServer(t)
	tests := []struct {
		name string
		args []string
		hint bool
	}{
		{name: "loopback", args: []string{s.URL + "/notes"}, hint: true},
		{name: "localhost_name", args: []string{"http://localhost:1/"}, hint: true},
		{name: "private", args: []string{"http://10.0.0.1/"}, hint: true},
		{name: "unique_local", args: []string{"http://[fd00::1]/"}, hint: true},
		{name: "metadata", args: []string{"http://169.254.169.254/latest/meta-data/"}, hint: false},
		{name: "metadata_with_flag", args: []string{"--allow-private", "http://100.100.100.200/"}, hint: false},
		{name: "metadata_name", args: []string{"http://metadata.google.internal/"}, hint: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(t.Context(), append([]string{"webfetch"}, tc.args...), strings.NewReader(""), &out, &errb); code != exitRefused {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, exitRefused, out.String(), errb.String())
			}
			var doc struct {
				Error struct{ Kind, Message string }
			}
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.Error.Kind != "blocked" {
				t.Fatalf("stdout %q: %v", out.String(), err)
			}
			if got := strings.Contains(doc.Error.Message, "--allow-private"); got != tc.hint {
				t.Errorf("message %q: mentions --allow-private %v, want %v", doc.Error.Message, got, tc.hint)
			}
		})
	}
}
