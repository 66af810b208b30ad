package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/examples/tools"
)

// TestTranscriptGolden pins the rendered results and error messages of a fixed sequence of
// calls on the sample workspace (prose for models: reviewed with -update, not promised).
func TestTranscriptGolden(t *testing.T) {
	b, dir := toolbox(t)
	calls := []struct{ tool, args string }{
		{"glob", `{"pattern":"**"}`},
		{"read", `{"file_path":"src/greet.go","offset":2,"limit":3}`},
		{"read", `{"file_path":"src"}`},
		{"read", `{"file_path":"src/nope.go"}`},
		{"read", `{"file_path":"../outside.txt"}`},
		{"read", `{"file_path":"src/greet.go","offset":0}`},
		{"grep", `{"pattern":"Greet","limit":2}`},
		{"grep", `{"pattern":"greet","ignore_case":true,"glob":"*.md"}`},
		{"grep", `{"pattern":"x","path":"lib"}`},
		{"grep", `{"pattern":"[unclosed"}`},
		{"glob", `{"pattern":"*.go","path":"README.md"}`},
		{"apply_patch", `{"patchText":"*** Begin Patch\n*** Update File: src/greet.go\n-\treturn \"Hi, \" + name\n+\treturn name\n*** End Patch"}`},
		{"apply_patch", `{"patchText":"*** Begin Patch\n*** Update File: src/main.go\n@@ func main() {\n-\tfmt.Println(Greet(\"world\"))\n+\tfmt.Println(Greet(\"gopher\"))\n*** Add File: docs/NOTES.md\n+# Notes\n*** End Patch"}`},
		{"apply_patch", `{}`},
	}
	var sb strings.Builder
	for _, c := range calls {
		out, err := b.Tool(c.tool).Call(context.Background(), json.RawMessage(c.args))
		fmt.Fprintf(&sb, "=== %s %s\n", c.tool, c.args)
		if err != nil {
			kind := "host error"
			if tools.IsToolError(err) {
				kind = "tool error"
			}
			out = kind + ": " + err.Error() + "\n"
		}
		sb.WriteString(strings.ReplaceAll(out, dir, "$ROOT"))
		sb.WriteString("\n")
	}
	got := strings.ReplaceAll(sb.String(), filepath.Dir(dir), "$TMP")
	if filepath.Separator != '/' {
		// The golden spells host paths with '/': Windows writes them with '\'.
		got = hostPath.ReplaceAllStringFunc(got, filepath.ToSlash)
	}
	checkGolden(t, filepath.Join("testdata", "transcript.golden"), got)
}

// hostPath matches a host path in a transcript, from the $ROOT or $TMP that stands for its
// directory to the next space, quote or parenthesis.
var hostPath = regexp.MustCompile(`\$(ROOT|TMP)[^\s"()]*`)
