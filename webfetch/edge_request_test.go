package webfetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func plainHandler(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, body)
	}
}

// Cases about request identity and cache keys: how many requests reach the server for a
// sequence of fetches.
func TestEdgeCacheKeys(t *testing.T) {
	tests := []struct {
		name     string
		reqs     func(base string) []Request
		requests int
	}{
		{name: "E2_fragments_share_one_request", requests: 1, reqs: func(b string) []Request {
			return []Request{{URL: b + "/doc#sec1"}, {URL: b + "/doc#sec2"}}
		}},
		{name: "E4_format_not_in_key", requests: 1, reqs: func(b string) []Request {
			return []Request{{URL: b + "/doc", Format: FormatMarkdown}, {URL: b + "/doc", Format: FormatHTML}}
		}},
		{name: "E4_save_binary_in_key", requests: 2, reqs: func(b string) []Request {
			return []Request{{URL: b + "/doc"}, {URL: b + "/doc", SaveBinary: true}}
		}},
		{name: "E5_fragment_variants_one_key", requests: 1, reqs: func(b string) []Request {
			return []Request{{URL: b + "/doc#sec1"}, {URL: b + "/doc#sec2"}, {URL: b + "/doc#"}, {URL: b + "/doc"}}
		}},
		{name: "E6_queries_are_different_keys", requests: 2, reqs: func(b string) []Request {
			return []Request{{URL: b + "/doc?page=1#a"}, {URL: b + "/doc?page=2#a"}}
		}},
		{name: "E7_extract_main_llms_save_binary_each_change_key", requests: 4, reqs: func(b string) []Request {
			return []Request{{URL: b + "/doc"}, {URL: b + "/doc", WholePage: true}, {URL: b + "/doc", LLMS: LLMSNever}, {URL: b + "/doc", SaveBinary: true}}
		}},
		{name: "tenants_never_share_entries", requests: 3, reqs: func(b string) []Request {
			return []Request{{URL: b + "/doc", Tenant: "a"}, {URL: b + "/doc", Tenant: "b"}, {URL: b + "/doc"}, {URL: b + "/doc", Tenant: "a"}}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTLSSite(t, plainHandler("hello "+words(30)))
			f, _, _ := testFetcher(t, WithHTTPClient(s.Client()))
			var results []*Result
			for _, r := range tc.reqs(s.URL) {
				results = append(results, fetch(t, f, r))
			}
			if got := s.count("/doc"); got != tc.requests {
				t.Fatalf("server saw %d requests, want %d", got, tc.requests)
			}
			for i, r := range results {
				if want := tc.reqs(s.URL)[i].URL; r.RequestedURL != want {
					t.Errorf("result %d requested_url %q, want %q", i, r.RequestedURL, want)
				}
			}
			if tc.name == "E2_fragments_share_one_request" && (results[0].CacheHit || !results[1].CacheHit) {
				t.Errorf("cache_hit = %v, %v; want false, true", results[0].CacheHit, results[1].CacheHit)
			}
		})
	}
}

// Cases about URL validation.
func TestEdgeInvalidURLs(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("a", 2049-len("https://example.com/"))
	tests := []struct {
		name    string
		url     string
		wantErr error
		wantMsg string
	}{
		{name: "E84_ftp_scheme", url: "ftp://example.com/x", wantErr: ErrInvalidURL, wantMsg: `Invalid URL "ftp://example.com/x": use an absolute http:// or https:// URL`},
		{name: "E84_no_scheme", url: "example.com/x", wantErr: ErrInvalidURL, wantMsg: "use an absolute http:// or https:// URL"},
		{name: "E84_no_host", url: "https:///x", wantErr: ErrInvalidURL, wantMsg: "use an absolute http:// or https:// URL"},
		{name: "E85_credentials", url: "https://user:pw@example.com/", wantErr: ErrInvalidURL, wantMsg: "URLs with credentials are not fetched"},
		{name: "E86_url_too_long", url: long, wantErr: ErrInvalidURL, wantMsg: "Invalid URL: longer than 2048 characters"},
		{name: "E120_negative_offset", url: "https://example.com/", wantErr: ErrInvalidRequest, wantMsg: "Invalid offset -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, _, res := testFetcher(t)
			req := Request{URL: tc.url}
			if strings.HasPrefix(tc.name, "E120") {
				req.Offset = -1
			}
			_, err := f.Fetch(context.Background(), req)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("message %q does not contain %q", err.Error(), tc.wantMsg)
			}
			if len(res.lookups) != 0 {
				t.Errorf("DNS lookups %v for an invalid URL", res.lookups)
			}
		})
	}
}

func TestEdgeRequestNormalisation(t *testing.T) {
	t.Run("E14_https_fragment_dropped_on_wire", func(t *testing.T) {
		s := newTLSSite(t, plainHandler("docs "+words(30)))
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()))
		u := s.at("https", "example.com", "/docs#sec1")
		r := fetch(t, f, Request{URL: u})
		if got := s.last().URL.String(); got != "/docs" {
			t.Errorf("request path %q, want /docs", got)
		}
		if r.RequestedURL != u || r.UpgradedToHTTPS {
			t.Errorf("requested_url %q upgraded %v", r.RequestedURL, r.UpgradedToHTTPS)
		}
		if s.total() != 1 {
			t.Errorf("%d requests, want 1 (no fallback)", s.total())
		}
	})
	t.Run("E15_http_upgraded_to_https", func(t *testing.T) {
		s := newTLSSite(t, plainHandler("docs "+words(30)))
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()))
		r := fetch(t, f, Request{URL: s.at("http", "example.com", "/docs#sec1")})
		if !r.UpgradedToHTTPS || !strings.HasPrefix(r.FinalURL, "https://example.com:") {
			t.Errorf("upgraded %v final %q", r.UpgradedToHTTPS, r.FinalURL)
		}
	})
	t.Run("E16_query_kept_fragment_dropped", func(t *testing.T) {
		s := newTLSSite(t, plainHandler("docs "+words(30)))
		f, _, _ := testFetcher(t, WithHTTPClient(s.Client()))
		r := fetch(t, f, Request{URL: s.at("https", "example.com", "/docs?page=2#anchor")})
		if got := s.last().URL.String(); got != "/docs?page=2" {
			t.Errorf("request %q, want /docs?page=2", got)
		}
		if !strings.HasSuffix(r.FinalURL, "/docs?page=2") {
			t.Errorf("final_url %q", r.FinalURL)
		}
	})
	t.Run("E87_idna_host", func(t *testing.T) {
		s := newTLSSite(t, plainHandler("books "+words(30)))
		f, _, res := testFetcher(t, WithHTTPClient(s.Client()))
		r, err := f.Fetch(context.Background(), Request{URL: s.at("https", "bücher.example", "/")})
		// The test certificate does not cover the name; what matters is the lookup.
		_ = r
		_ = err
		if !slices.Contains(res.lookups, "xn--bcher-kva.example") {
			t.Errorf("lookups %v, want xn--bcher-kva.example", res.lookups)
		}
		c, err := f.prepare(Request{URL: "https://bücher.example/x"})
		if err != nil || !strings.HasPrefix(c.key.Target, "https://xn--bcher-kva.example/x") {
			t.Errorf("cache key %q err %v", c.key, err)
		}
	})
	t.Run("E89_timeout_clamped", func(t *testing.T) {
		f, _, _ := testFetcher(t)
		c, err := f.prepare(Request{URL: "https://example.com/", Timeout: 10 * time.Minute})
		if err != nil || c.timeout != 120*time.Second {
			t.Errorf("timeout %v err %v, want 120s", c.timeout, err)
		}
	})
	t.Run("E140_closed_fetcher", func(t *testing.T) {
		f, _, _ := testFetcher(t)
		_ = f.Close()
		_ = f.Close()
		if _, err := f.Fetch(context.Background(), Request{URL: "https://example.com/"}); !errors.Is(err, ErrClosed) {
			t.Errorf("err %v, want ErrClosed", err)
		}
	})
}

func TestEdgePermission(t *testing.T) {
	t.Run("E92_denied_then_called_once_per_call", func(t *testing.T) {
		s := newSite(t, plainHandler("hello "+words(30)))
		calls := 0
		deny := true
		f, _, _ := testFetcher(t, WithPermission(func(context.Context, PermissionRequest) error {
			calls++
			if deny {
				return errors.New("user said no")
			}
			return nil
		}))
		_, err := f.Fetch(context.Background(), Request{URL: s.URL + "/p"})
		if !errors.Is(err, ErrPermissionDenied) || calls != 1 || s.total() != 0 {
			t.Fatalf("err %v calls %d requests %d", err, calls, s.total())
		}
		deny = false
		fetch(t, f, Request{URL: s.URL + "/p"})
		r := fetch(t, f, Request{URL: s.URL + "/p"})
		if !r.CacheHit || calls != 3 {
			t.Errorf("cache hit %v, permission calls %d; want true, 3", r.CacheHit, calls)
		}
	})
	t.Run("E93_patterns_for_docs_deep_page", func(t *testing.T) {
		var got PermissionRequest
		f, _, _ := testFetcher(t, WithPermission(func(_ context.Context, p PermissionRequest) error {
			got = p
			return errors.New("stop here")
		}))
		_, _ = f.Fetch(context.Background(), Request{URL: "http://docs.example.com/guide"})
		want := []string{"https://docs.example.com/guide", "http://docs.example.com/guide",
			"https://docs.example.com/guide.md", "http://docs.example.com/guide.md"}
		if !slices.Equal(got.Patterns, want) {
			t.Errorf("patterns %q, want %q", got.Patterns, want)
		}
		if slices.Contains(got.Patterns, "*") || !got.ProbeLLMS {
			t.Errorf("patterns %q probe %v", got.Patterns, got.ProbeLLMS)
		}
	})
}

func TestEdgeParseArgs(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		wantErr string
		want    Request
	}{
		{name: "E88_timeout_zero", json: `{"url":"https://x.org","timeout":0}`, wantErr: "timeout"},
		{name: "E88_timeout_121", json: `{"url":"https://x.org","timeout":121}`, wantErr: "timeout"},
		{name: "E88_format_pdf", json: `{"url":"https://x.org","format":"pdf"}`, wantErr: "format"},
		{name: "E88_llms_maybe", json: `{"url":"https://x.org","prefer_llms_txt":"maybe"}`, wantErr: "prefer_llms_txt"},
		{name: "E88_offset_negative", json: `{"url":"https://x.org","offset":-1}`, wantErr: "offset"},
		{name: "E88_defaults", json: `{"url":"https://x.org"}`, want: Request{URL: "https://x.org", Format: FormatMarkdown, Timeout: 30 * time.Second, LLMS: LLMSAuto}},
		{name: "E88_all_fields", json: `{"url":"https://x.org","format":"text","timeout":5,"prompt":"p","extract_main":false,"prefer_llms_txt":"never","include_metadata":false,"save_binary":true,"offset":7}`,
			want: Request{URL: "https://x.org", Format: FormatText, Timeout: 5 * time.Second, Prompt: "p", WholePage: true, LLMS: LLMSNever, OmitMetadata: true, SaveBinary: true, Offset: 7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseArgs([]byte(tc.json))
			if tc.wantErr != "" {
				if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want ErrInvalidRequest naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// TestRequestHeaders: every request carries exactly User-Agent, Accept, Accept-Language (and
// the transport's Accept-Encoding); no cookies, credentials or Referer, even when the server
// sets a cookie on an earlier response.
func TestRequestHeaders(t *testing.T) {
	s := newTLSSite(t, func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "secret"})
		if r.URL.Path == "/a" {
			redirectTo("/b", http.StatusFound)(w, r)
			return
		}
		plainHandler("ok "+words(30))(w, r)
	})
	f, _, _ := testFetcher(t, WithHTTPClient(s.Client()))
	fetch(t, f, Request{URL: s.URL + "/a"})
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) != 2 {
		t.Fatalf("%d requests", len(s.reqs))
	}
	for _, r := range s.reqs {
		var names []string
		for k := range r.Header {
			names = append(names, k)
		}
		slices.Sort(names)
		if strings.Join(names, ",") != "Accept,Accept-Encoding,Accept-Language,User-Agent" {
			t.Errorf("%s: headers %v", r.URL.Path, names)
		}
		if r.Header.Get("User-Agent") != DefaultUserAgent || r.Header.Get("Accept") != acceptPage || r.Header.Get("Accept-Language") != DefaultAcceptLanguage {
			t.Errorf("%s: header values %v", r.URL.Path, r.Header)
		}
	}
}
