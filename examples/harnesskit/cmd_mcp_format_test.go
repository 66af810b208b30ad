package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPFormat serves "harnesskit mcp --format" over pipes and sends apply_patch an untidy
// Go file: the file on disk is gofmt's text and the result says so; without --format the
// file is the patch's text.
func TestMCPFormat(t *testing.T) {
	const patchText = "*** Begin Patch\n*** Add File: tidy.go\n+package main\n+\n+func  Tidy( )int{\n+return 1\n+}\n*** End Patch\n"
	const gofmted = "package main\n\nfunc Tidy() int {\n\treturn 1\n}\n"
	const asPatched = "package main\n\nfunc  Tidy( )int{\nreturn 1\n}\n"
	tests := []struct {
		name     string
		flags    []string
		wantFile string
		want     string // substring of the result
		absent   string
	}{
		{name: "with_format", flags: []string{"--format"}, wantFile: gofmted, want: "tidy.go: formatted by gofmt, 4 lines changed:\n--- a/tidy.go"},
		{name: "without_format", wantFile: asPatched, want: "A tidy.go", absent: "format"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			var stderr bytes.Buffer
			code := make(chan int, 1)
			go func() {
				code <- run(context.Background(), append([]string{"mcp", "--root", dir}, tc.flags...), inR, outW, &stderr)
				outW.Close()
			}()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, nil).
				Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
			if err != nil {
				t.Fatal(err)
			}
			call, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "apply_patch", Arguments: map[string]any{"patchText": patchText}})
			if err != nil {
				t.Fatal(err)
			}
			out := call.Content[0].(*mcp.TextContent).Text
			if call.IsError || !strings.Contains(out, tc.want) || tc.absent != "" && strings.Contains(out, tc.absent) {
				t.Errorf("apply_patch result (tool error %v):\n%s\nwant %q, not %q", call.IsError, out, tc.want, tc.absent)
			}
			cs.Close()
			inW.Close()
			if c := <-code; c != exitOK {
				t.Fatalf("exit %d, stderr:\n%s", c, stderr.String())
			}
			got, err := os.ReadFile(filepath.Join(dir, "tidy.go"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.wantFile {
				t.Errorf("tidy.go = %q, want %q", got, tc.wantFile)
			}
		})
	}
}
