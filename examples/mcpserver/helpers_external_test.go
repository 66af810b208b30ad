package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/examples/mcpserver"
	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sampleFiles is the workspace the tests serve.
var sampleFiles = map[string]string{
	".gitignore":   "*.log\n",
	"README.md":    "# Sample\n\nGreets people.\n",
	"src/greet.go": "package main\n\n// Greet returns a greeting.\nfunc Greet(name string) string {\n\treturn \"Hello, \" + name\n}\n",
	"src/main.go":  "package main\n\nfunc main() { println(Greet(\"world\")) }\n",
	"debug.log":    "Greet failed\n",
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newServer returns a server over a fresh sample workspace, and the workspace.
func newServer(t testing.TB) (*mcp.Server, string) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, sampleFiles)
	box, err := tools.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { box.Close() })
	return mcpserver.New(box, nil), dir
}

// connect connects a client to srv over the SDK's in-memory transport.
func connect(t testing.TB, srv *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// text returns the concatenated text content of a result.
func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
