package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/examples/mcpserver"
	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bigTree adds n small files below dir/many.
func bigTree(t *testing.T, dir string, n int) {
	files := map[string]string{}
	for i := range n {
		files[filepath.ToSlash(filepath.Join("many", fmt.Sprintf("d%02d", i%50), fmt.Sprintf("f%04d.txt", i)))] = "line one\nneedle\n"
	}
	writeFiles(t, dir, files)
}

// TestProgress: a grep over a few thousand files with a progress token sends progress
// notifications that increase, and still returns the full result.
func TestProgress(t *testing.T) {
	srv, dir := newServer(t)
	bigTree(t, dir, 800)
	var got []float64
	notes := make(chan float64, 100)
	cs := connect(t, srv, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		if r.Params.ProgressToken == "tok" {
			notes <- r.Params.Progress
		}
	}})
	params := &mcp.CallToolParams{Name: "grep", Arguments: map[string]any{"pattern": "needle", "path": "many", "limit": 1}}
	params.SetProgressToken("tok")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	if want := "Found 800 matching lines in 800 files"; !strings.Contains(text(res), want) {
		t.Fatalf("result %q lacks %q", text(res), want)
	}
	// Notifications may arrive after the result; 800 files at one per 256 make 3.
	for len(got) < 3 {
		got = append(got, <-notes)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("progress does not increase: %v", got)
		}
	}
}

// TestCancel: the client cancels a long grep at its first progress notification; the
// call ends with an error (not a result), and the server keeps serving.
func TestCancel(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, sampleFiles)
	bigTree(t, dir, 1500)
	box, err := tools.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	logged := make(chan string, 100)
	srv := mcpserver.New(box, &mcpserver.Options{Logger: slog.New(chanHandler(logged))})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen atomic.Int32
	cs := connect(t, srv, &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		seen.Add(1)
		cancel()
	}})
	params := &mcp.CallToolParams{Name: "grep", Arguments: map[string]any{"pattern": "needle"}}
	params.SetProgressToken(7)
	res, err := cs.CallTool(ctx, params)
	if err == nil {
		if seen.Load() == 0 {
			t.Skip("the grep finished before any progress notification arrived (machine too fast for this tree)")
		}
		t.Fatalf("cancelled call returned a result: %v", text(res))
	}
	if !errors.Is(err, context.Canceled) {
		t.Logf("cancelled call: %v", err)
	}
	// The server's handler saw the cancellation (it logs it when the call returns).
	for seenCancel := false; !seenCancel; {
		select {
		case msg := <-logged:
			seenCancel = msg == "tool call cancelled"
		case <-time.After(30 * time.Second):
			t.Fatal("the server never logged the cancellation of the call")
		}
	}
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatalf("server gone after a cancel: %v", err)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "glob", Arguments: map[string]any{"pattern": "*.md"}})
	if err != nil || res.IsError {
		t.Fatalf("call after the cancel: %v %v", err, res)
	}
}

// chanHandler is a slog.Handler that sends each record's message to a channel (dropping
// it when the channel is full).
type chanHandler chan string

func (h chanHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h chanHandler) Handle(_ context.Context, r slog.Record) error {
	select {
	case h <- r.Message:
	default:
	}
	return nil
}
func (h chanHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h chanHandler) WithGroup(string) slog.Handler      { return h }
