package loopguard

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// parseTokens are the pieces the texts of TestParsePluginParity are built from: the words
// the readers look for, in several cases, and every kind of space and line break.
var parseTokens = []string{
	"task_id:", "TASK_ID:", "Task", "task", "tasks", "(", ")", "state:", "STATE:", "State:", "busy", "Running",
	"running", "completed", "q-1_b", "(unconfirmed)", "(UNCONFIRMED)", "status_uncertain:", "true", "TRUE", "false",
	" ", "  ", "\t", "\v", "\n", "\r", "\r\n", "\u2028", "\u2029", "\u00a0", "\u3000", "\ufeff", "\u200b",
	"x", "id7", "é", "\xff", ":", "_", "-",
}

// TestParsePluginParity compares readStatus with the readers of the
// published oh-my-opencode-slim 2.2.24 hook, run by testdata/plugin/driver.mjs, on texts
// drawn from parseTokens. It needs Node and the package (see TestPluginParity for the
// set-up) and skips without them.
func TestParsePluginParity(t *testing.T) {
	dir := os.Getenv("LOOPGUARD_PLUGIN_DIR")
	if dir == "" {
		t.Skip("optional oracle absent: set LOOPGUARD_PLUGIN_DIR to an installed oh-my-opencode-slim 2.2.24 package (npm install oh-my-opencode-slim@2.2.24) to compare with the plugin")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("optional oracle absent: node is not on PATH")
	}
	cmd := exec.CommandContext(t.Context(), node, filepath.Join("testdata", "plugin", "driver.mjs"), dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	replies := bufio.NewReader(out)
	text := rapid.Custom(func(t *rapid.T) string {
		parts := rapid.SliceOfN(rapid.SampledFrom(parseTokens), 0, 24).Draw(t, "tokens")
		return strings.Join(parts, "")
	})
	rapid.Check(t, func(t *rapid.T) {
		texts := rapid.SliceOfN(text, 1, 32).Draw(t, "texts")
		line, _ := json.Marshal(map[string][]string{"parse": texts})
		if _, err := stdin.Write(append(line, '\n')); err != nil {
			t.Fatal(err)
		}
		reply, err := replies.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var want [][2]string
		if err := json.Unmarshal(reply, &want); err != nil || len(want) != len(texts) {
			t.Fatalf("driver reply %q: %v", reply, err)
		}
		for i, s := range texts {
			// The text reaches Node through JSON, where each invalid UTF-8 byte becomes U+FFFD.
			s = string([]rune(s))
			if id, state := readStatus(s); id != want[i][0] || state != want[i][1] {
				t.Fatalf("text %q: loopguard %q, %q; plugin %q, %q", s, id, state, want[i][0], want[i][1])
			}
		}
	})
}
