package webfetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeHost records session calls.
type fakeHost struct {
	mu          sync.Mutex
	next        int
	parents     []string
	aborts      int
	deleted     []string
	deleteFails int // how many Delete calls fail (-1 = all)
	answer      string
	release     chan struct{} // when set, Prompt waits for it (ignoring ctx)
	promptDone  chan struct{}
}

func (h *fakeHost) CreateChild(_ context.Context, parent, _ string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.next++
	h.parents = append(h.parents, parent)
	return fmt.Sprint("s", h.next), nil
}

func (h *fakeHost) Prompt(ctx context.Context, id string, _ ModelRef, _, _ string) (string, error) {
	if h.release != nil {
		<-h.release
		defer close(h.promptDone)
		return "late", nil
	}
	return h.answer, nil
}

func (h *fakeHost) Abort(context.Context, string) error {
	h.mu.Lock()
	h.aborts++
	h.mu.Unlock()
	return nil
}

func (h *fakeHost) Delete(_ context.Context, id string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.deleteFails != 0 {
		if h.deleteFails > 0 {
			h.deleteFails--
		}
		return errors.New("delete failed")
	}
	h.deleted = append(h.deleted, id)
	return nil
}

func (h *fakeHost) snapshot() (int, []string, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.aborts, append([]string(nil), h.deleted...), append([]string(nil), h.parents...)
}

func TestEdgeSessionSummarizer(t *testing.T) {
	ref := ModelRef{Provider: "p", Model: "m"}
	fast := WithSessionRetryDelay(time.Millisecond)
	t.Run("E26_chain_deletes_both_sessions", func(t *testing.T) {
		h1, h2 := &fakeHost{answer: "  "}, &fakeHost{answer: "second"}
		c := Chain(time.Second, Candidate{Ref: ref, S: NewSessionSummarizer(h1, ref, fast)}, Candidate{Ref: ref, S: NewSessionSummarizer(h2, ref, fast)})
		ans, err := c.Summarize(context.Background(), SummaryRequest{})
		_, d1, _ := h1.snapshot()
		_, d2, _ := h2.snapshot()
		if err != nil || ans.Text != "second" || len(d1) != 1 || len(d2) != 1 {
			t.Errorf("ans %+v err %v deleted %v %v", ans, err, d1, d2)
		}
	})
	logged := func() (*slog.Logger, *bytes.Buffer) {
		var buf bytes.Buffer
		return slog.New(slog.NewTextHandler(&buf, nil)), &buf
	}
	t.Run("E28_delete_retried", func(t *testing.T) {
		h := &fakeHost{answer: "ok", deleteFails: 1}
		l, buf := logged()
		ans, err := NewSessionSummarizer(h, ref, fast, WithSessionLogger(l)).Summarize(context.Background(), SummaryRequest{})
		_, d, _ := h.snapshot()
		if err != nil || ans.Text != "ok" || len(d) != 1 || buf.Len() != 0 {
			t.Errorf("ans %+v err %v deleted %v log %q", ans, err, d, buf.String())
		}
	})
	t.Run("E29_delete_always_fails_one_warning", func(t *testing.T) {
		h := &fakeHost{answer: "ok", deleteFails: -1}
		l, buf := logged()
		s := NewSessionSummarizer(h, ref, fast, WithSessionLogger(l))
		for range 2 {
			if ans, err := s.Summarize(context.Background(), SummaryRequest{}); err != nil || ans.Text != "ok" {
				t.Fatalf("ans %+v err %v", ans, err)
			}
		}
		if n := strings.Count(buf.String(), "\n"); n != 1 || !strings.Contains(buf.String(), "webfetch") {
			t.Errorf("log %q, want one line mentioning webfetch", buf.String())
		}
	})
	t.Run("E31_E32_timeout_abort_once_cleanup_pending", func(t *testing.T) {
		h := &fakeHost{release: make(chan struct{}), promptDone: make(chan struct{})}
		s := NewSessionSummarizer(h, ref, fast)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		if _, err := s.Summarize(ctx, SummaryRequest{}); err == nil {
			t.Fatal("no error after the deadline")
		}
		aborts, deleted, _ := h.snapshot()
		if aborts != 1 || len(deleted) != 0 {
			t.Fatalf("aborts %d deleted %v before the prompt settled", aborts, deleted)
		}
		// E32: while the cleanup is pending, a fetch gets its content with the reason.
		srv := newTLSSite(t, serve(ptr("text/plain"), []byte(words(40))))
		f, _, _ := testFetcher(t, WithHTTPClient(srv.Client()), WithSummarizer(s))
		r := fetch(t, f, Request{URL: srv.URL + "/", Prompt: "q"})
		if r.SkipReason != SkipModelFailed || r.SummaryError != errCleanupPending.Error() || h.next != 1 {
			t.Fatalf("skip %q error %q sessions %d", r.SkipReason, r.SummaryError, h.next)
		}
		close(h.release)
		<-h.promptDone
		deadline := time.Now().Add(2 * time.Second)
		for {
			if _, d, _ := h.snapshot(); len(d) == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("session never deleted after the prompt settled")
			}
			time.Sleep(time.Millisecond)
		}
		h.mu.Lock()
		h.release, h.answer = nil, "fine"
		h.mu.Unlock()
		for time.Now().Before(deadline) {
			ans, err := s.Summarize(context.Background(), SummaryRequest{})
			if err == nil && ans.Text == "fine" {
				return
			}
			time.Sleep(time.Millisecond)
		}
		t.Error("calls did not succeed after cleanup")
	})
	t.Run("E33_parent_session", func(t *testing.T) {
		h := &fakeHost{answer: "ok"}
		s := NewSessionSummarizer(h, ref, fast)
		s.Summarize(context.Background(), SummaryRequest{SessionID: "parent-1"})
		s.Summarize(context.Background(), SummaryRequest{})
		if _, _, parents := h.snapshot(); len(parents) != 2 || parents[0] != "parent-1" || parents[1] != "" {
			t.Errorf("parents %q", parents)
		}
	})
}

// E41: Fetch never opens a file for reading and nothing resolves configuration at call time.
// Checked by inspecting the package source: no read API of os or io/ioutil is referenced.
func TestEdgeNoFileReads(t *testing.T) {
	t.Run("E41_no_file_reads_in_package", func(t *testing.T) {
		files, _ := filepath.Glob("*.go")
		forbidden := map[string]bool{"Open": true, "ReadFile": true, "ReadDir": true, "DirFS": true, "Getenv": true, "LookupEnv": true, "Environ": true}
		fset := token.NewFileSet()
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && (id.Name == "os" || id.Name == "ioutil") && forbidden[sel.Sel.Name] {
					t.Errorf("%s: %s.%s", fset.Position(sel.Pos()), id.Name, sel.Sel.Name)
				}
				return true
			})
		}
	})
}
