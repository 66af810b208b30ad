package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/harnesskit/harnesskit/examples/mcpserver"
	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func Example() {
	dir, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("buy milk\n"), 0o644)

	box, err := tools.New(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer box.Close()
	srv := mcpserver.New(box, nil)

	// A client connected in memory; a real one uses mcp.CommandTransport (stdio) or
	// mcp.StreamableClientTransport (HTTP), or srv.Run(ctx, &mcp.StdioTransport{}).
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, _ := srv.Connect(ctx, st, nil)
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	defer func() { cs.Close(); ss.Wait() }()

	list, _ := cs.ListTools(ctx, nil)
	for _, t := range list.Tools {
		if strings.HasPrefix(t.Name, "ast_grep_") {
			continue // listed too where a backend is available (cgo, or ast-grep on PATH)
		}
		fmt.Println(t.Name, "read-only:", t.Annotations.ReadOnlyHint)
	}
	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "grep", Arguments: map[string]any{"pattern": "milk"}})
	fmt.Print(res.Content[0].(*mcp.TextContent).Text)
	res, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"file_path": "../x"}})
	fmt.Println("isError:", res.IsError)
	// Output:
	// apply_patch read-only: false
	// edit read-only: false
	// glob read-only: true
	// grep read-only: true
	// multi_edit read-only: false
	// read read-only: true
	// webfetch read-only: true
	// Found 1 matching lines in 1 files
	//
	// notes.txt:
	//   1: buy milk
	// isError: true
}
