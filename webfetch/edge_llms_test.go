package webfetch

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// docsSite serves docs.example.com (any host name) over TLS with every dial routed to it.
func docsSite(t *testing.T, h http.HandlerFunc, opts ...Option) (*Fetcher, *site) {
	t.Helper()
	s := newTLSSite(t, h)
	rt := &routeAll{target: strings.TrimPrefix(s.URL, "https://")}
	f, _, _ := testFetcher(t, append([]Option{WithHTTPClient(s.Client()), withRawDial(rt.dial)}, opts...)...)
	return f, s
}

func routes(m map[string]http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h, ok := m[r.URL.Path]; ok {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}
}

var htmlGuide = func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	w.Write([]byte(article("Install guide", "Run the installer and follow the prompts.")))
}

func TestEdgeLLMS(t *testing.T) {
	t.Run("E1_always_root_both_404", func(t *testing.T) {
		calls := 0
		f, s := docsSite(t, routes(map[string]http.HandlerFunc{"/": htmlGuide}), WithPermission(func(context.Context, PermissionRequest) error { calls++; return nil }))
		r := fetch(t, f, Request{URL: "https://docs.example.com/", LLMS: LLMSAlways})
		want := "Required llms.txt content was unavailable.\nOriginal URL: https://docs.example.com/\nReason: llms.txt probe returned status 404: https://docs.example.com/llms.txt"
		if r.Kind != KindLLMSUnavailable || r.Content != want || r.Title != "" || calls != 1 || s.count("/") != 0 {
			t.Fatalf("kind %v title %q calls %d page hits %d content %q", r.Kind, r.Title, calls, s.count("/"), r.Content)
		}
		if out := Render(r); !strings.Contains(out, `prefer_llms_txt: "always"`) || !strings.Contains(out, "used_llms_txt: false") {
			t.Errorf("render:\n%s", out)
		}
	})
	t.Run("E58_login_redirect_and_login_title_rejected", func(t *testing.T) {
		f, s := docsSite(t, routes(map[string]http.HandlerFunc{
			"/llms-full.txt": redirectTo("/login", http.StatusFound),
			"/login":         plainHandler("please log in"),
			"/llms.txt":      plainHandler("<title>Sign in</title> to continue"),
		}))
		r := fetch(t, f, Request{URL: "https://docs.example.com/", LLMS: LLMSAlways})
		if r.Kind != KindLLMSUnavailable || !strings.Contains(r.Content, "Reason: llms.txt probe returned HTML/login content: https://docs.example.com/llms.txt") {
			t.Fatalf("content %q", r.Content)
		}
		if s.count("/llms.txt") != 1 || s.count("/llms-full.txt") != 1 {
			t.Errorf("candidates not both tried")
		}
		f2, _ := docsSite(t, routes(map[string]http.HandlerFunc{
			"/llms-full.txt": redirectTo("/login", http.StatusFound),
			"/login":         plainHandler("please log in"),
		}))
		r = fetch(t, f2, Request{URL: "https://docs.example.com/", LLMS: LLMSAlways})
		if !strings.Contains(r.Content, "llms.txt probe returned status 404") && !strings.Contains(r.Content, "resolved to non-llms path") {
			t.Errorf("content %q", r.Content)
		}
	})
	reject := []struct {
		name, want string
		h          http.HandlerFunc
	}{
		{name: "E59_site_file_as_html", h: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("# Docs"))
		}, want: "llms.txt probe returned HTML/login content: https://docs.example.com/llms.txt"},
		{name: "E60_redirect_to_docs_dir", h: redirectTo("/docs/", http.StatusFound), want: "llms.txt probe resolved to non-llms path: https://docs.example.com/docs/"},
	}
	for _, tc := range reject {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := docsSite(t, routes(map[string]http.HandlerFunc{"/llms.txt": tc.h, "/llms-full.txt": tc.h, "/docs/": plainHandler("docs index")}))
			r := fetch(t, f, Request{URL: "https://docs.example.com/", LLMS: LLMSAlways})
			if !strings.Contains(r.Content, "Reason: "+tc.want) {
				t.Errorf("content %q, want reason %q", r.Content, tc.want)
			}
		})
	}
	t.Run("E61_auto_root_llms_full", func(t *testing.T) {
		f, s := docsSite(t, routes(map[string]http.HandlerFunc{
			"/llms-full.txt": plainHandler("# Example docs\n\n\n\n## Install\nRun it.\n"),
			"/":              htmlGuide,
		}))
		var out []string
		for _, format := range []Format{FormatMarkdown, FormatText} {
			r := fetch(t, f, Request{URL: "https://docs.example.com/", Format: format, OmitMetadata: true})
			if r.Source != SourceLLMSTxt || !r.UsedLLMS || r.ExtractedMain || r.Title != "Example docs" {
				t.Fatalf("source %q used %v extracted %v title %q", r.Source, r.UsedLLMS, r.ExtractedMain, r.Title)
			}
			out = append(out, r.Content)
		}
		if out[0] != out[1] || out[0] != "# Example docs\n\n## Install\nRun it." || s.count("/") != 0 {
			t.Errorf("renderings %q page hits %d", out, s.count("/"))
		}
	})
	t.Run("E62_probe_budget_timeout", func(t *testing.T) {
		f, s := docsSite(t, routes(map[string]http.HandlerFunc{
			"/llms-full.txt": func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-time.After(2 * time.Second):
				}
			},
			"/": htmlGuide,
		}), WithLimits(Limits{ProbeBudget: 100 * time.Millisecond}))
		r := fetch(t, f, Request{URL: "https://docs.example.com/"})
		if r.LLMSProbeError != "timeout after 100ms" || r.Source != SourceHTML || s.count("/") != 1 {
			t.Errorf("probe error %q source %q", r.LLMSProbeError, r.Source)
		}
	})
	t.Run("E70_poisoned_llms_entry_evicted", func(t *testing.T) {
		f, s := docsSite(t, routes(map[string]http.HandlerFunc{"/llms-full.txt": plainHandler("# Docs\nbody")}))
		fetch(t, f, Request{URL: "https://docs.example.com/"})
		for _, e := range mem(f).entries() {
			e.st.finalURL = "https://docs.example.com/index.html"
		}
		r := fetch(t, f, Request{URL: "https://docs.example.com/"})
		if r.CacheHit || s.count("/llms-full.txt") != 2 || r.FinalURL != "https://docs.example.com/llms-full.txt" {
			t.Errorf("hit %v requests %d final %q", r.CacheHit, s.count("/llms-full.txt"), r.FinalURL)
		}
	})
	t.Run("E95_deep_page_markdown_variant", func(t *testing.T) {
		f, s := docsSite(t, routes(map[string]http.HandlerFunc{
			"/guide/install.md": func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/markdown")
				w.Write([]byte("# Install\n\nSteps."))
			},
			"/llms-full.txt": plainHandler("whole site"),
		}))
		r := fetch(t, f, Request{URL: "https://docs.example.com/guide/install"})
		if r.Source != SourceLLMSMD || !strings.HasSuffix(r.FinalURL, "/guide/install.md") || s.count("/llms-full.txt") != 0 {
			t.Errorf("source %q final %q", r.Source, r.FinalURL)
		}
	})
	t.Run("E96_deep_page_variant_404", func(t *testing.T) {
		f, s := docsSite(t, routes(map[string]http.HandlerFunc{"/guide/install": htmlGuide}))
		r := fetch(t, f, Request{URL: "https://docs.example.com/guide/install"})
		if r.Source != SourceHTML || !r.ExtractedMain || r.LLMSProbeError != "" || s.count("/llms.txt")+s.count("/llms-full.txt") != 0 || s.count("/guide/install.md") != 1 {
			t.Errorf("source %q probe error %q", r.Source, r.LLMSProbeError)
		}
	})
	t.Run("E103_always_deep_page", func(t *testing.T) {
		f, s := docsSite(t, routes(map[string]http.HandlerFunc{"/a.md": plainHandler("# A")}))
		r := fetch(t, f, Request{URL: "https://www.example.com/a", LLMS: LLMSAlways})
		if r.Source != SourceLLMSMD {
			t.Errorf("source %q", r.Source)
		}
		r = fetch(t, f, Request{URL: "https://www.example.com/b", LLMS: LLMSAlways})
		if r.Kind != KindLLMSUnavailable || !strings.Contains(r.Content, "llms.txt probe returned status 404: https://www.example.com/b.md") {
			t.Errorf("content %q", r.Content)
		}
		if s.count("/llms.txt")+s.count("/llms-full.txt") != 0 {
			t.Error("site files requested for a deep page")
		}
	})
	t.Run("E104_always_direct_url_only_candidate", func(t *testing.T) {
		f, s := docsSite(t, routes(map[string]http.HandlerFunc{"/llms.txt": plainHandler("# Site")}))
		r := fetch(t, f, Request{URL: "https://www.example.com/llms.txt", LLMS: LLMSAlways})
		if r.Source != SourceLLMSTxt || s.total() != 1 {
			t.Errorf("source %q requests %d", r.Source, s.total())
		}
	})
	t.Run("E105_deep_page_with_query_not_probed", func(t *testing.T) {
		f, s := docsSite(t, routes(map[string]http.HandlerFunc{"/search": htmlGuide}))
		r := fetch(t, f, Request{URL: "https://docs.example.com/search?q=x"})
		if r.Source != SourceHTML || s.total() != 1 {
			t.Errorf("source %q requests %d", r.Source, s.total())
		}
	})
	hosts := []struct {
		name string
		host string
		want bool
	}{
		{name: "E106_notdocs_rs", host: "notdocs.rs", want: false},
		{name: "E106_docs_rs", host: "docs.rs", want: true},
		{name: "E106_foo_docs_rs", host: "foo.docs.rs", want: true},
		{name: "E106_docs_label", host: "docs.example.com", want: true},
		{name: "E106_docsy_label", host: "docsy.example.com", want: false},
	}
	for _, tc := range hosts {
		t.Run(tc.name, func(t *testing.T) {
			var c config
			if got := c.docsLike(tc.host); got != tc.want {
				t.Errorf("docsLike(%q) = %v", tc.host, got)
			}
		})
	}
}
