package webfetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestContextWithProgress: a call's context callback sees its own body progress, after the
// fetcher's callback, and another call without one reports only to the fetcher's.
func TestContextWithProgress(t *testing.T) {
	body := "<html><body><article><p>" + strings.Repeat("word ", 20_000) + "</p></article></body></html>"
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(body))
	}))
	defer s.Close()
	var all, one atomic.Int64
	var order atomic.Bool // true while the fetcher's callback ran last
	f, _, _ := testFetcher(t, WithHTTPClient(s.Client()), WithLLMSMode(LLMSNever), WithoutCache(),
		WithProgress(func(_ string, read, _ int64) { all.Store(read); order.Store(true) }))
	ctx := ContextWithProgress(context.Background(), func(u string, read, total int64) {
		if !order.Load() {
			t.Errorf("the call's callback ran before the fetcher's")
		}
		order.Store(false)
		if !strings.HasPrefix(u, s.URL) || (total != -1 && total != int64(len(body))) {
			t.Errorf("progress(%q, %d, %d)", u, read, total)
		}
		one.Store(read)
	})
	if _, err := f.Fetch(ctx, Request{URL: s.URL + "/page"}); err != nil {
		t.Fatal(err)
	}
	if one.Load() != int64(len(body)) || all.Load() != int64(len(body)) {
		t.Fatalf("call saw %d bytes, fetcher %d, want both %d", one.Load(), all.Load(), len(body))
	}
	one.Store(0)
	if _, err := f.Fetch(context.Background(), Request{URL: s.URL + "/page"}); err != nil {
		t.Fatal(err)
	}
	if one.Load() != 0 {
		t.Fatalf("a call without a progress context reported to another call's callback")
	}
	if ContextWithProgress(ctx, nil) != ctx {
		t.Fatal("a nil callback must return the context unchanged")
	}
}
