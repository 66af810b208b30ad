package realhosts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The hosts .ci/run installs, pinned in testdata/hosts/package-lock.json (npm ci --prefix
// examples/realhosts/testdata/hosts). HARNESSKIT_CLAUDE, HARNESSKIT_GEMINI and
// HARNESSKIT_OPENCODE name other installs; HARNESSKIT_MCP_BIN another harnesskit build than
// the one the tests make from ../harnesskit.
const (
	hostsModules    = "testdata/hosts/node_modules"
	claudeVersion   = "2.1.332"
	geminiVersion   = "0.61.0"
	opencodeVersion = "1.18.33"
	prompt          = "Change hello.txt so that it greets harnesskit, then check the file."
	hostTimeout     = 3 * time.Minute
)

var binDir string // holds the harnesskit binary the hosts start

func TestMain(m *testing.M) {
	code := func() int {
		dir, err := os.MkdirTemp("", "harnesskit-realhosts-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		binDir = dir
		return m.Run()
	}()
	os.Exit(code)
}

// harnesskit builds the harnesskit command into binDir (once) and returns binDir.
func harnesskit(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(binDir, "harnesskit")
	if _, err := os.Stat(bin); err == nil {
		return binDir
	}
	if other := os.Getenv("HARNESSKIT_MCP_BIN"); other != "" { // another build, e.g. an older one
		abs, err := filepath.Abs(other)
		if err == nil {
			err = os.Symlink(abs, bin)
		}
		if err != nil {
			t.Fatal(err)
		}
		return binDir
	}
	start := time.Now()
	out, err := exec.Command("go", "build", "-o", bin, "../harnesskit").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ../harnesskit: %v\n%s", err, out)
	}
	t.Logf("built harnesskit in %v", time.Since(start).Round(time.Millisecond))
	return binDir
}

// find returns the host's executable: the environment variable's value, else the first
// match of the pattern below the pinned install, else "" (the test then skips).
func find(env, pattern string) string {
	if p := os.Getenv(env); p != "" {
		return p
	}
	m, _ := filepath.Glob(filepath.Join(hostsModules, pattern))
	if len(m) == 0 {
		return ""
	}
	abs, _ := filepath.Abs(m[0])
	if filepath.Ext(abs) != ".js" { // a script runs through node; a binary must start here
		if _, err := exec.LookPath(abs); err != nil {
			return "" // installed for another system (a Linux install seen from Windows)
		}
	}
	return abs
}

// project makes a workspace with hello.txt, and a file beside it that must stay out of
// reach; it returns the workspace.
func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "project")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, "hello.txt"), original)
	write(t, filepath.Join(dir, "outside.txt"), "not for the model\n")
	return ws
}

func write(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dst, string(data))
}

// hostEnv is the environment of a host run: the caller's, without its proxies and without
// the host's own credentials and settings, a fresh HOME, harnesskit first on PATH, a proxy
// that refuses every address but loopback, then extra.
func hostEnv(t *testing.T, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch up := strings.ToUpper(k); {
		case strings.HasSuffix(up, "_PROXY"), up == "HOME", up == "PATH", up == "PWD", strings.HasPrefix(up, "XDG_"),
			strings.HasPrefix(up, "ANTHROPIC_"), strings.HasPrefix(up, "CLAUDE_"), strings.HasPrefix(up, "GEMINI_"),
			strings.HasPrefix(up, "GOOGLE_"), strings.HasPrefix(up, "OPENCODE"), strings.HasPrefix(up, "OPENAI_"):
			continue
		}
		env = append(env, kv)
	}
	home := t.TempDir()
	env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"PATH="+harnesskit(t)+string(os.PathListSeparator)+os.Getenv("PATH"),
		// No real network: whatever a host fetches besides the model on loopback (update
		// checks, plugin registries) goes to a proxy that refuses at once.
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "https_proxy=http://127.0.0.1:9", "http_proxy=http://127.0.0.1:9",
		"NO_PROXY=127.0.0.1,localhost,::1", "no_proxy=127.0.0.1,localhost,::1")
	return append(env, extra...)
}

// run runs a host to the end of its turn and returns its stdout.
func run(t *testing.T, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hostTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	// OpenCode takes its directory from $PWD rather than from the process's.
	cmd.Dir, cmd.Env = dir, append(env, "PWD="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	t.Logf("%s ran in %v", filepath.Base(name), time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, out, stderr.String())
	}
	if testing.Verbose() && stderr.Len() > 0 {
		t.Logf("stderr:\n%s", stderr.String())
	}
	return out
}

func version(t *testing.T, env []string, want string, name string, args ...string) {
	t.Helper()
	out, err := exec.Command(name, append(args, "--version")...).Output()
	got := strings.TrimSpace(string(out))
	if err != nil || !strings.Contains(got, want) {
		t.Logf("version %q (%v); the test is pinned to %s", got, err, want)
		return
	}
	t.Logf("version %s", got)
}

// checkFile verifies the patch reached the disk and nothing outside changed.
func checkFile(t *testing.T, ws string) {
	t.Helper()
	got, err := os.ReadFile(filepath.Join(ws, "hello.txt"))
	if err != nil || string(got) != patched {
		t.Fatalf("hello.txt on disk: %q, %v; want %q", got, err, patched)
	}
	if got, _ := os.ReadFile(filepath.Join(filepath.Dir(ws), "outside.txt")); string(got) != "not for the model\n" {
		t.Fatalf("outside.txt changed: %q", got)
	}
}

// TestClaudeCode runs Claude Code (claude -p) through one turn against the scripted model,
// with the harnesskit server from testdata/claude-code.mcp.json, the file the README shows.
func TestClaudeCode(t *testing.T) {
	claude := find("HARNESSKIT_CLAUDE", "@anthropic-ai/claude-code-*/claude")
	if claude == "" {
		t.Skipf("Claude Code is not installed: run npm ci --prefix examples/realhosts/testdata/hosts (pins %s), or set HARNESSKIT_CLAUDE to a claude executable", claudeVersion)
	}
	tr := &turn{}
	model := httptest.NewServer(anthropicModel(tr))
	defer model.Close()
	ws := project(t)
	config, _ := filepath.Abs("testdata/claude-code.mcp.json")
	env := hostEnv(t, "ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=sk-ant-test",
		// No telemetry, updates or other traffic; the MCP tools listed up front rather than
		// behind a tool search.
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "ENABLE_TOOL_SEARCH=false")
	version(t, env, claudeVersion, claude)
	out := run(t, ws, env, claude, "-p", prompt, "--mcp-config", config, "--strict-mcp-config",
		"--allowedTools", "mcp__harnesskit", "--output-format", "json")
	var res struct {
		Result  string `json:"result"`
		IsError bool   `json:"is_error"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.IsError || res.Result != finalAnswer {
		t.Errorf("claude's answer: %+v (%v)\n%s", res, err, out)
	}
	tr.check(t)
	checkFile(t, ws)
	t.Logf("%d model requests with the tools, %d others", tr.main, tr.side)
}

// TestGeminiCLI runs Gemini CLI (gemini -p) through one turn against the scripted model,
// with the harnesskit server from testdata/gemini-settings.json as the project's
// .gemini/settings.json, the file the README shows.
func TestGeminiCLI(t *testing.T) {
	script := find("HARNESSKIT_GEMINI", "@google/gemini-cli/bundle/gemini.js")
	if script == "" {
		t.Skipf("Gemini CLI is not installed: run npm ci --prefix examples/realhosts/testdata/hosts (pins %s), or set HARNESSKIT_GEMINI to its bundle/gemini.js", geminiVersion)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: Gemini CLI needs Node.js 20 or later")
	}
	tr := &turn{}
	model := httptest.NewServer(geminiModel(tr))
	defer model.Close()
	ws := project(t)
	copyFile(t, "testdata/gemini-settings.json", filepath.Join(ws, ".gemini", "settings.json"))
	env := hostEnv(t, "GOOGLE_GEMINI_BASE_URL="+model.URL, "GEMINI_API_KEY=test-key", "GEMINI_CLI_TRUST_WORKSPACE=true")
	home := strings.TrimPrefix(env[len(env)-1], "")
	for _, kv := range env {
		if h, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = h
		}
	}
	// The user's settings choose the API-key sign-in, which the base URL applies to.
	write(t, filepath.Join(home, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`)
	version(t, env, geminiVersion, node, script)
	out := run(t, ws, env, node, script, "-p", prompt, "--output-format", "json", "--approval-mode", "yolo")
	var res struct {
		Response string `json:"response"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Response != finalAnswer {
		t.Errorf("gemini's answer: %+v (%v)\n%s", res, err, out)
	}
	tr.check(t)
	checkFile(t, ws)
	t.Logf("%d model requests with the tools, %d others", tr.main, tr.side)
}

// TestOpenCode runs OpenCode (opencode run) through one turn against the scripted model
// (its anthropic provider pointed at the fake Messages API), with the harnesskit server
// from testdata/opencode.json as the project's opencode.json, the file the README shows.
func TestOpenCode(t *testing.T) {
	opencode := find("HARNESSKIT_OPENCODE", "opencode-*/bin/opencode")
	if opencode == "" {
		t.Skipf("OpenCode is not installed: run npm ci --prefix examples/realhosts/testdata/hosts (pins %s, linux-x64 only), or set HARNESSKIT_OPENCODE to an opencode executable", opencodeVersion)
	}
	tr := &turn{}
	model := httptest.NewServer(anthropicModel(tr))
	defer model.Close()
	ws := project(t)
	copyFile(t, "testdata/opencode.json", filepath.Join(ws, "opencode.json"))
	env := hostEnv(t, "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1")
	var home string
	for _, kv := range env {
		if h, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = h
		}
	}
	// The user's config points the anthropic provider at the fake model.
	write(t, filepath.Join(home, ".config", "opencode", "opencode.json"), mustJSON(map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"provider":   map[string]any{"anthropic": map[string]any{"options": map[string]any{"baseURL": model.URL + "/v1", "apiKey": "sk-ant-test"}}},
		"model":      "anthropic/claude-sonnet-4-5",
		"permission": map[string]any{"edit": "allow", "bash": "allow", "webfetch": "allow"},
		"autoupdate": false,
		"share":      "disabled",
	}))
	version(t, env, opencodeVersion, opencode)
	out := run(t, ws, env, opencode, "run", prompt)
	if !strings.Contains(string(out), finalAnswer) {
		t.Errorf("opencode's answer does not end the turn with %q:\n%s", finalAnswer, out)
	}
	tr.check(t)
	checkFile(t, ws)
	t.Logf("%d model requests with the tools, %d others", tr.main, tr.side)
}

// TestREADMESnippets: the README shows each host's configuration as the very file these
// tests run the host with.
func TestREADMESnippets(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"claude-code.mcp.json", "gemini-settings.json", "opencode.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("testdata/%s is not JSON: %v", f, err)
		}
		if block := "```json\n" + strings.TrimSpace(string(data)) + "\n```"; !strings.Contains(string(readme), block) {
			t.Errorf("the README does not show testdata/%s as it is:\n%s", f, block)
		}
	}
}
