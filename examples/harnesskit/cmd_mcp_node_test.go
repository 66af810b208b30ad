package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPNodeClient runs examples/mcpclient-node/client.mjs, a client built on the
// official TypeScript MCP SDK, against the compiled server over stdio: the same flow as the
// Go end-to-end tests, from a client that is not ours. It skips without node or without
// the SDK installed (npm ci --prefix examples/mcpclient-node).
func TestMCPNodeClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found on PATH: the TypeScript MCP SDK client test needs Node.js 18 or later")
	}
	clientDir, _ := filepath.Abs(filepath.Join("..", "mcpclient-node"))
	if _, err := os.Stat(filepath.Join(clientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("the TypeScript MCP SDK is not installed: run npm ci --prefix examples/mcpclient-node")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not found on PATH: cannot build the server binary")
	}
	bin := filepath.Join(t.TempDir(), "harnesskit")
	build := exec.Command(gobin, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(node, "client.mjs", bin)
	cmd.Dir = clientDir
	out, err := cmd.CombinedOutput()
	t.Logf("node client.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("the Node client failed: %v", err)
	}
	if n := strings.Count(string(out), "\nok  ") + 1; n < 18 {
		t.Fatalf("only %d checks passed", n)
	}
}
