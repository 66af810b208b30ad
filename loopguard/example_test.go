package loopguard_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/harnesskit/harnesskit/loopguard"
)

// A host puts the guard between the model and its tools: Before each call, After with
// its result. Here the model reads the same unchanged file over and over: the third
// result gets a notice, and the sixth read is refused with a message for the model.
func Example() {
	dir, err := os.MkdirTemp("", "loopguard-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "a.ts"), []byte("export const a = 1;\n"), 0o644); err != nil {
		log.Fatal(err)
	}

	guard, err := loopguard.New()
	if err != nil {
		log.Fatal(err)
	}
	// read is the host's own tool.
	read := func(args json.RawMessage) string {
		var a struct{ FilePath string }
		if err := json.Unmarshal(args, &a); err != nil {
			return err.Error()
		}
		data, err := os.ReadFile(filepath.Join(dir, a.FilePath))
		if err != nil {
			return err.Error() // an error text counts like any other result
		}
		return string(data)
	}

	for i := 1; i <= 6; i++ {
		call := loopguard.Call{
			Session: "conversation-1",          // one per conversation
			CallID:  fmt.Sprintf("call-%d", i), // the same at Before and After
			Tool:    "read",
			Args:    json.RawMessage(`{"filePath":"a.ts"}`),
		}
		if err := guard.Before(call); err != nil {
			// Not run: err.Error() is the tool result the model gets instead.
			fmt.Printf("call %d refused: %.60s…\n", i, err)
			continue
		}
		result, err := guard.AfterText(call, read(call.Args))
		if err != nil {
			log.Fatal(err) // only a call without Session or CallID
		}
		firstLine, _, _ := strings.Cut(result, "\n")
		fmt.Printf("call %d: %s notice=%t\n", i, firstLine, strings.Contains(result, loopguard.DefaultLoopMarker))
	}
	// Output:
	// call 1: export const a = 1; notice=false
	// call 2: export const a = 1; notice=false
	// call 3: export const a = 1; notice=true
	// call 4: export const a = 1; notice=true
	// call 5: export const a = 1; notice=true
	// call 6 refused: Refusing to execute "read": this exact call (same tool, same…
}

// A host calls Before before running a tool and After with its result. The third
// identical result gets a notice; after the fifth, the next identical read is refused.
func ExampleGuard() {
	g, err := loopguard.New()
	if err != nil {
		panic(err)
	}
	for i := 1; i <= 6; i++ {
		c := loopguard.Call{Session: "s1", CallID: fmt.Sprint("call-", i), Tool: "read", Args: json.RawMessage(`{"filePath":"a.ts"}`)}
		if err := g.Before(c); err != nil {
			fmt.Printf("call %d refused: %v\n", i, errors.Is(err, loopguard.ErrRefused))
			continue
		}
		v, err := g.After(c, loopguard.TextOutput("export const a = 1;\n"))
		if err != nil {
			panic(err)
		}
		fmt.Printf("call %d: run %d, notice %t\n", i, v.Runs, v.Notice != "")
	}
	// Output:
	// call 1: run 1, notice false
	// call 2: run 2, notice false
	// call 3: run 3, notice true
	// call 4: run 4, notice true
	// call 5: run 5, notice true
	// call 6 refused: true
}

// The refusal is a *RefusedError whose message is meant for the model.
func ExampleGuard_Before() {
	g, _ := loopguard.New(loopguard.WithWarnAt(1), loopguard.WithBlockAt(1))
	c := loopguard.Call{Session: "s1", CallID: "1", Tool: "Grep", Args: json.RawMessage(`{"pattern":"TODO"}`)}
	_ = g.Before(c)
	_, _ = g.After(c, loopguard.TextOutput("no matches"))
	err := g.Before(loopguard.Call{Session: "s1", CallID: "2", Tool: "grep", Args: json.RawMessage(`{ "pattern" : "TODO" }`)})
	var re *loopguard.RefusedError
	if errors.As(err, &re) {
		fmt.Println(re.Kind, re.Tool, re.Runs)
		fmt.Println(err)
	}
	// Output:
	// loop grep 1
	// Refusing to execute "grep": this exact call (same tool, same arguments) has returned identical results 1 times in a row and constitutes an infinite loop. Stop repeating it. Reassess your goal, make a different call, or produce your final answer.
}

// A new result restarts the streak: re-reading a file after editing it is never blocked.
func ExampleGuard_After() {
	g, _ := loopguard.New()
	read := func(id, content string) loopguard.Verdict {
		c := loopguard.Call{Session: "s1", CallID: id, Tool: "read", Args: json.RawMessage(`{"filePath":"a.ts"}`)}
		if err := g.Before(c); err != nil {
			panic(err)
		}
		v, err := g.After(c, loopguard.TextOutput(content))
		if err != nil {
			panic(err)
		}
		return v
	}
	for i, content := range []string{"v1", "v1", "v2", "v2", "v2"} {
		v := read(fmt.Sprint(i), content)
		fmt.Printf("%s → run %d\n", content, v.Runs)
		if v.Notice != "" {
			fmt.Print(strings.SplitN(v.Output.Text, "\n", 4)[2], "\n")
		}
	}
	// Output:
	// v1 → run 1
	// v1 → run 2
	// v2 → run 1
	// v2 → run 2
	// v2 → run 3
	// [REPEATED TOOL CALLS - STOP]
}

// Wait tools share one counter per turn: the second gets a notice, the third is refused
// until a distinct user message (or EndTurn) starts a new turn.
func ExampleGuard_UserMessage() {
	g, _ := loopguard.New()
	wait := func(id string) string {
		c := loopguard.Call{Session: "s1", CallID: id, Tool: "wait_for_user"}
		if err := g.Before(c); err != nil {
			return "refused"
		}
		if v, _ := g.After(c, loopguard.TextOutput("waiting")); v.Notice != "" {
			return "notice"
		}
		return "ok"
	}
	g.UserMessage("s1", "m1", true)
	fmt.Println(wait("1"), wait("2"), wait("3"))
	g.UserMessage("s1", "m1", true) // the same message delivered again: ignored
	fmt.Println(wait("4"))
	g.UserMessage("s1", "m2", true)
	fmt.Println(wait("5"))
	// Output:
	// ok notice refused
	// refused
	// ok
}

// Supervision tools (task_status, task_result) feed one polling stream per task, read
// from the output; they are never refused, only warned about.
func ExampleGuard_After_supervision() {
	g, _ := loopguard.New(loopguard.WithWarnAt(2))
	for i := 1; i <= 3; i++ {
		c := loopguard.Call{Session: "s1", CallID: fmt.Sprint(i), Tool: "task_status", Args: json.RawMessage(`{"task_id":"bg1"}`)}
		_ = g.Before(c) // supervision tools are never refused
		v, _ := g.After(c, loopguard.TextOutput("task_id: bg1\nstate: running"))
		fmt.Println(v.Stream, v.Runs, v.Notice != "")
	}
	st, _ := g.State("s1")
	fmt.Println(st.Supervision["bg1"])
	// Output:
	// supervision 1 false
	// supervision 2 true
	// supervision 3 true
	// {running 3}
}

// A call without a session or call id is a bug in the host, reported at once: such a
// call could never be counted.
func ExampleErrInvalidCall() {
	g, _ := loopguard.New()
	err := g.Before(loopguard.Call{Tool: "read", Args: json.RawMessage(`{"filePath":"a.ts"}`)})
	fmt.Println(errors.Is(err, loopguard.ErrInvalidCall))
	fmt.Println(err)
	// Output:
	// true
	// loopguard: invalid call: Session and CallID are empty in the "read" call: set Session to the conversation id and CallID to the host's id for the call, the same at Before and After
}

// Canonical is the argument identity: key order and spacing do not matter, numbers are
// compared as numbers, and text that is not JSON is kept as raw bytes. Keep in sync with
// FuzzCanonical's seeds.
func ExampleCanonical() {
	for _, in := range []string{`{"b": [1.0, {"d":null,"c":"x"}], "a": true}`, ``, `{"a":`} {
		fmt.Println(string(loopguard.Canonical(nil, []byte(in))))
	}
	// Output:
	// {"a":true,"b":[1,{"c":"x","d":null}]}
	// undefined
	// raw:{"a":
}

// Notices can be reworded; <tool> and <N> are filled in.
func ExampleWithNotices() {
	g, _ := loopguard.New(loopguard.WithWarnAt(2), loopguard.WithNotices(loopguard.Notices{Loop: "<tool> returned the same thing <N> times."}))
	var out string
	for i := range 2 {
		c := loopguard.Call{Session: "s1", CallID: fmt.Sprint(i), Tool: "bash", Args: json.RawMessage(`{"command":"ls"}`)}
		_ = g.Before(c)
		out, _ = g.AfterText(c, "a.ts")
	}
	fmt.Printf("%q\n", out)
	// Output:
	// "a.ts\n\n[REPEATED TOOL CALLS - STOP]\n\nbash returned the same thing 2 times.\n"
}
