package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harnesskit/harnesskit/examples/tools"
)

func Example() {
	dir, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello\nworld\n"), 0o644)

	box, err := tools.New(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer box.Close()
	ctx := context.Background()

	out, _ := box.Tool("read").Call(ctx, json.RawMessage(`{"file_path":"hello.txt"}`))
	fmt.Print(out)
	_, err = box.Tool("read").Call(ctx, json.RawMessage(`{"file_path":"../elsewhere.txt"}`))
	fmt.Println("tool error:", tools.IsToolError(err))
	// Output:
	//      1	hello
	//      2	world
	// tool error: true
}

// frameworkTool stands for another agent framework's tool type: a name, a description,
// a parameters schema and a function from JSON arguments to text.
type frameworkTool struct {
	Name, Description string
	Parameters        map[string]any
	Run               func(ctx context.Context, argsJSON string) (string, error)
}

// Wrapping a tool for another framework: copy the three model-facing fields, and send
// tool errors back to the model as text while host errors stop the agent.
func Example_otherFramework() {
	dir, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(dir)
	box, _ := tools.New(dir)
	defer box.Close()

	var wrapped []frameworkTool
	for _, t := range box.Tools() {
		var params map[string]any
		json.Unmarshal(t.InputSchema, &params)
		wrapped = append(wrapped, frameworkTool{Name: t.Name, Description: t.Description, Parameters: params,
			Run: func(ctx context.Context, args string) (string, error) {
				out, err := t.Call(ctx, json.RawMessage(args))
				if tools.IsToolError(err) {
					return "Error: " + err.Error(), nil
				}
				return out, err
			}})
	}
	for _, w := range wrapped[:7] { // the tools every build has; more follow where their backend is available
		fmt.Println(w.Name, w.Parameters["required"])
	}
	out, _ := wrapped[2].Run(context.Background(), `{"pattern":"("}`)
	fmt.Println(out[:61])
	// Output:
	// apply_patch [patchText]
	// read [file_path]
	// grep [pattern]
	// glob [pattern]
	// webfetch [url]
	// edit [file_path old_string new_string]
	// multi_edit [file_path edits]
	// Error: grep: pattern "(" is not a valid Go regular expression
}
