package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/harnesskit/harnesskit/examples/mcpserver"
	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolsStep serves the workspace's tools over MCP to a client connected in memory (what
// `harnesskit mcp` does over stdio or HTTP): the client lists the tools, greps, and gets a
// tool error it can act on when it names a file that does not exist. Nothing is changed.
func toolsStep(ctx context.Context, e *env) error {
	box, err := tools.New(e.root)
	if err != nil {
		return err
	}
	defer box.Close()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(box, nil).Connect(ctx, st, nil)
	if err != nil {
		return err
	}
	defer ss.Wait()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "demo", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	// ast_grep_search and ast_grep_replace exist only where astsearch has a backend (cgo, or
	// ast-grep on PATH); the transcript leaves them out so that it is the same in every build.
	var shown []*mcp.Tool
	for _, t := range list.Tools {
		if !strings.HasPrefix(t.Name, "ast_grep_") {
			shown = append(shown, t)
		}
	}
	e.printf("An MCP client connected in memory sees %d tools (and ast_grep_search and ast_grep_replace where astsearch has a backend):\n", len(shown))
	for _, t := range shown {
		schema, _ := t.InputSchema.(map[string]any)
		e.printf("  %-12s required %v, read-only %v\n", t.Name, schema["required"], t.Annotations.ReadOnlyHint)
	}
	call := func(name string, args map[string]any) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return err
		}
		a, _ := json.Marshal(args)
		e.printf("\n%s %s → isError %v\n", name, a, res.IsError)
		for _, line := range strings.Split(strings.TrimRight(res.Content[0].(*mcp.TextContent).Text, "\n"), "\n") {
			e.printf("%s\n", strings.TrimRight("  | "+line, " "))
		}
		return nil
	}
	if err := call("grep", map[string]any{"pattern": "func ", "glob": "*.go"}); err != nil {
		return err
	}
	return call("read", map[string]any{"file_path": "src/greeting.go"})
}
