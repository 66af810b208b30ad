//go:build windows

package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestGlobBackslashWindows: on Windows, glob patterns and grep's glob filter written with
// backslashes match as if written with slashes.
func TestGlobBackslashWindows(t *testing.T) {
	b, _ := toolbox(t)
	for _, c := range []struct{ tool, args, want string }{
		{"glob", `{"pattern":"src\\*.go"}`, "src/greet.go"},
		{"glob", `{"pattern":"**\\main.go"}`, "src/main.go"},
		{"grep", `{"pattern":"Greet","glob":"src\\*.go"}`, "src/greet.go:"},
	} {
		out, err := b.Tool(c.tool).Call(context.Background(), json.RawMessage(c.args))
		if err != nil || !strings.Contains(out, c.want) {
			t.Errorf("%s %s: %q, %v; want %q", c.tool, c.args, out, err, c.want)
		}
	}
}
