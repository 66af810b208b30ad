package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/examples/mcpserver"
	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHostErrorIsProtocolError: a host fault (here the workspace root removed under the
// server) reaches the client as a JSON-RPC error, not as a tool result, and the server
// keeps serving once the root is back.
func TestHostErrorIsProtocolError(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, sampleFiles)
	box, err := tools.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	cs := connect(t, mcpserver.New(box, nil), nil)
	if err := os.Rename(dir, dir+".away"); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "apply_patch", Arguments: map[string]any{
		"patchText": "*** Begin Patch\n*** Update File: README.md\n-# Sample\n+# Example\n*** End Patch"}})
	if err == nil {
		t.Fatalf("a host fault came back as a result: isError=%v %q", res.IsError, text(res))
	}
	if !strings.Contains(err.Error(), "apply_patch") {
		t.Errorf("the protocol error does not name the tool: %v", err)
	}
	if err := os.Rename(dir+".away", dir); err != nil {
		t.Fatal(err)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"file_path": "README.md"}})
	if err != nil || res.IsError {
		t.Fatalf("read after a host fault: %v %v", err, res)
	}
}

// TestLargeFileIsToolError: patch's size limit is a tool error over MCP (a result with
// isError set, naming the limit), not a JSON-RPC internal error.
func TestLargeFileIsToolError(t *testing.T) {
	srv, dir := newServer(t)
	huge := filepath.Join(dir, "huge.log")
	if err := os.WriteFile(huge, []byte("first line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, patch.DefaultMaxFileSize+1); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "apply_patch", Arguments: map[string]any{
		"patchText": "*** Begin Patch\n*** Update File: huge.log\n-first line\n+line one\n*** End Patch\n"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), strconv.FormatInt(patch.DefaultMaxFileSize, 10)) {
		t.Fatalf("update of a file over the limit: %v, %+v; want an isError result naming the limit", err, res)
	}
}
