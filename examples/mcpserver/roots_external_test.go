package mcpserver_test

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fileURI is the file:// URI of the absolute path p: file:///home/x, or file:///C:/x for a
// Windows path (whose drive letter must not become the URI's host).
func fileURI(p string) string {
	s := filepath.ToSlash(p)
	if !strings.HasPrefix(s, "/") {
		s = "/" + s
	}
	return (&url.URL{Scheme: "file", Path: s}).String()
}

// TestClientRoots: when the client offers roots, the server takes them, with its own root as
// the ceiling: relative paths resolve against the client's first root, paths outside it
// are refused, a root outside the server's root is left out, and a change of the client's
// roots is seen by the next call.
func TestClientRoots(t *testing.T) {
	srv, dir := newServer(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "roots-client", Version: "1"}, nil)
	client.AddRoots(&mcp.Root{URI: fileURI(t.TempDir()), Name: "elsewhere"}, &mcp.Root{URI: fileURI(filepath.Join(dir, "src")), Name: "src"})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Hosts speak protocol versions before 2026-07-28 (Gemini CLI 0.61: 2025-06-18), where a
	// server may ask the client for its roots.
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	call := func(tool string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: %v", tool, args, err)
		}
		return text(res), res.IsError
	}
	if out, isErr := call("read", map[string]any{"file_path": "greet.go"}); isErr || !strings.Contains(out, "func Greet") {
		t.Fatalf("read greet.go against the client's root src: %q (isError %v)", out, isErr)
	}
	if out, isErr := call("read", map[string]any{"file_path": "../README.md"}); !isErr || !strings.Contains(out, "outside") {
		t.Fatalf("read ../README.md outside the client's root: %q (isError %v)", out, isErr)
	}
	if out, isErr := call("glob", map[string]any{"pattern": "*.go"}); isErr || !strings.Contains(out, "\ngreet.go\n") {
		t.Fatalf("glob in the client's root: %q", out)
	}
	// The client now works in the whole workspace: the next call sees it.
	client.RemoveRoots(fileURI(filepath.Join(dir, "src")))
	client.AddRoots(&mcp.Root{URI: fileURI(dir), Name: "all"})
	if out, isErr := call("read", map[string]any{"file_path": "README.md"}); isErr || !strings.Contains(out, "# Sample") {
		t.Fatalf("read README.md after the roots changed: %q (isError %v)", out, isErr)
	}
}

// TestClientRootsNewProtocol: from protocol 2026-07-28 on a server may not ask for the
// client's roots; such a session works in the server's root.
func TestClientRootsNewProtocol(t *testing.T) {
	srv, dir := newServer(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "roots-client", Version: "1"}, nil)
	client.AddRoots(&mcp.Root{URI: fileURI(filepath.Join(dir, "src")), Name: "src"})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"file_path": "README.md"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "# Sample") {
		t.Fatalf("read README.md in the server's root: %v, %q", err, text(res))
	}
}
