package webfetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// endless writes chunk until the client goes away (a chunked body with no end).
func endless(ct string, chunk []byte, pause time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			if pause > 0 {
				select {
				case <-r.Context().Done():
				case <-time.After(pause):
				}
			}
		}
	}
}

// TestAttackBodyBounds holds bodies that never end, arrive a byte at a time, or expand from a
// small gzip stream: each call ends within its bound, reports the cut, and writes nothing.
func TestAttackBodyBounds(t *testing.T) {
	limits := Limits{MaxTextBytes: 64 << 10, MaxBinaryBytes: 64 << 10, MaxOutputChars: 4000}
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zeros := make([]byte, 1<<20)
	for range 8 {
		_, _ = zw.Write(zeros)
	}
	_ = zw.Close()
	cases := []struct {
		name      string
		handler   http.HandlerFunc
		req       Request
		wantErr   error
		truncated bool
	}{
		{name: "endless_chunked_text", handler: endless("text/plain", []byte(strings.Repeat("endless text ", 100)+"\n"), 0), truncated: true},
		{name: "endless_chunked_html", handler: endless("text/html", []byte("<p>"+strings.Repeat("endless html ", 100)+"</p>"), 0), truncated: true},
		{name: "endless_binary_not_saved", handler: endless("application/octet-stream", bytes.Repeat([]byte{0, 1, 2, 3}, 1024), 0)},
		{name: "endless_binary_saved", handler: endless("application/pdf", append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte{0, 1, 2, 3}, 1024)...), 0), req: Request{SaveBinary: true}, truncated: true},
		{name: "endless_redirect_body", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", "/elsewhere")
			w.WriteHeader(http.StatusFound)
			for r.Context().Err() == nil {
				if _, err := w.Write(make([]byte, 4096)); err != nil {
					return
				}
			}
		}, wantErr: ErrTooManyRedirects},
		{name: "endless_error_body", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
			for r.Context().Err() == nil {
				if _, err := w.Write(make([]byte, 4096)); err != nil {
					return
				}
			}
		}, wantErr: ErrStatus},
		{name: "slowloris_body", handler: endless("text/plain", []byte("a"), 20*time.Millisecond), req: Request{Timeout: 300 * time.Millisecond}, wantErr: ErrTimeout},
		{name: "slow_headers", handler: func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}, req: Request{Timeout: 300 * time.Millisecond}, wantErr: ErrTimeout},
		{name: "gzip_bomb_text", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(bomb.Bytes())
		}, truncated: true},
		{name: "gzip_bomb_binary_saved", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(bomb.Bytes())
		}, req: Request{SaveBinary: true}, truncated: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, tc.handler)
			dir := privateDir(t)
			f, _, _ := testFetcher(t, WithLimits(limits), WithBinaryDir(dir))
			req := tc.req
			req.URL, req.LLMS = s.URL+"/big", LLMSNever
			if req.Timeout == 0 {
				req.Timeout = 5 * time.Second
			}
			start := time.Now()
			r, err := f.Fetch(context.Background(), req)
			if took := time.Since(start); took > req.Timeout+2*time.Second {
				t.Errorf("took %s with a %s timeout", took, req.Timeout)
			}
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if r.BodyTruncated != tc.truncated {
					t.Errorf("truncated %v, want %v", r.BodyTruncated, tc.truncated)
				}
				if n := len([]rune(r.Content)); n > limits.MaxOutputChars+200 {
					t.Errorf("content %d code points, limit %d", n, limits.MaxOutputChars)
				}
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("files written: %v", ents)
			}
		})
	}
}

// TestAttackProbeBounds: an llms.txt candidate that never ends is cut at the text limit (the
// probe budget is large, so the cut does not depend on how fast the loopback is); one that
// arrives a line at a time is abandoned at the probe budget. The call stays bounded.
func TestAttackProbeBounds(t *testing.T) {
	cases := []struct {
		name   string
		pause  time.Duration
		limits Limits
		within time.Duration
		kind   Kind
	}{
		{name: "endless_llms_full", limits: Limits{ProbeBudget: 60 * time.Second, MaxTextBytes: 16 << 10}, within: 50 * time.Second, kind: KindContent},
		{name: "slow_llms_full", pause: 20 * time.Millisecond, limits: Limits{ProbeBudget: 300 * time.Millisecond, MaxTextBytes: 64 << 10}, within: 4 * time.Second, kind: KindLLMSUnavailable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			limits := tc.limits
			s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
				endless("text/plain", []byte("# llms\nline of text\n"), tc.pause)(w, r)
			})
			f, _, _ := testFetcher(t, WithLimits(limits))
			start := time.Now()
			r, err := f.Fetch(context.Background(), Request{URL: s.URL + "/", LLMS: LLMSAlways, Timeout: 90 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > tc.within {
				t.Errorf("took %s with a %s probe budget", took, limits.ProbeBudget)
			}
			if r.Kind != tc.kind || int64(len(r.Content)) > limits.MaxTextBytes {
				t.Errorf("kind %s content %d bytes, want %s within %d bytes", r.Kind, len(r.Content), tc.kind, limits.MaxTextBytes)
			}
		})
	}
}
