package astsearch

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// npmShim is the batch file npm (cmd-shim) writes for a package binary, here for one that
// points at target (a path relative to the shim's directory, with backslashes).
func npmShim(target string) string {
	return "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\nCALL :find_dp0\r\n\r\n" +
		`IF EXIST "%dp0%\node.exe" (` + "\r\n" + `  SET "_prog=%dp0%\node.exe"` + "\r\n) ELSE (\r\n" + `  SET "_prog=node"` + "\r\n" +
		"  SET PATHEXT=%PATHEXT:;.JS;=;%\r\n)\r\n\r\n" +
		`endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\` + target + `" %*` + "\r\n"
}

// fakeCLI is a CLI backend under Windows rules whose processes are recorded, not run as
// asked: every command runs a program that prints nothing and exits 1 (ast-grep's "no
// match"), so a test can see what would have been started.
func fakeCLI(t *testing.T, exe string) (*cliBackend, *[]string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the recorded command runs a POSIX shell")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to stand in for ast-grep")
	}
	var started []string
	c := &cliBackend{exe: exe, goos: "windows", command: func(ctx context.Context, name string, arg ...string) *exec.Cmd {
		started = append(started, strings.Join(append([]string{name}, arg...), " | "))
		return exec.CommandContext(ctx, sh, "-c", "exit 1")
	}}
	return c, &started
}

const injection = `x"&echo injected>M&rem `

// TestCLIWindowsBatchShim: the ast-grep found on a Windows PATH is npm's ast-grep.cmd; a
// pattern with cmd.exe syntax once created file M through it. The batch file is never
// started: the program it names is, directly, or node.exe with its script; a batch file
// whose program cannot be found is refused before anything runs.
func TestCLIWindowsBatchShim(t *testing.T) {
	q := Query{Pattern: injection, Lang: JavaScript}
	src := []Source{{Path: "a.js", Data: []byte("x\n")}}
	write := func(t *testing.T, dir, name, text string) string {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("native_binary", func(t *testing.T) {
		dir := t.TempDir()
		shim := write(t, dir, "ast-grep.cmd", npmShim(`node_modules\@ast-grep\cli-win32-x64-msvc\ast-grep.exe`))
		bin := write(t, dir, "node_modules/@ast-grep/cli-win32-x64-msvc/ast-grep.exe", "MZ")
		c, started := fakeCLI(t, shim)
		if _, err := c.Find(context.Background(), q, src); err != nil {
			t.Fatal(err)
		}
		if len(*started) != 1 || !strings.HasPrefix((*started)[0], bin+" | run | --pattern="+injection) {
			t.Fatalf("started %q, want %s with the pattern as its own argument", *started, bin)
		}
	})
	t.Run("target_without_extension", func(t *testing.T) {
		dir := t.TempDir()
		shim := write(t, dir, "AST-GREP.CMD", npmShim(`node_modules\@ast-grep\cli\ast-grep`))
		bin := write(t, dir, "node_modules/@ast-grep/cli/ast-grep.exe", "MZ")
		c, started := fakeCLI(t, shim)
		if _, err := c.Find(context.Background(), q, src); err != nil {
			t.Fatal(err)
		}
		if len(*started) != 1 || !strings.HasPrefix((*started)[0], bin+" | ") {
			t.Fatalf("started %q, want %s", *started, bin)
		}
	})
	t.Run("node_script", func(t *testing.T) {
		dir := t.TempDir()
		shim := write(t, dir, "ast-grep.bat", npmShim(`node_modules\@ast-grep\cli\run.js`))
		script := write(t, dir, "node_modules/@ast-grep/cli/run.js", "// launcher\n")
		node := write(t, dir, "node.exe", "MZ")
		c, started := fakeCLI(t, shim)
		if _, err := c.Find(context.Background(), q, src); err != nil {
			t.Fatal(err)
		}
		if len(*started) != 1 || !strings.HasPrefix((*started)[0], node+" | "+script+" | run | --pattern="+injection) {
			t.Fatalf("started %q, want node.exe with the script, then the pattern", *started)
		}
	})
	for _, c := range []struct{ name, text string }{
		{name: "no_target", text: "@echo off\r\nnode \"C:\\tools\\sg.js\" %*\r\n"},
		{name: "missing_target", text: npmShim(`node_modules\@ast-grep\cli-win32-x64-msvc\ast-grep.exe`)},
		{name: "target_is_batch", text: npmShim(`inner.cmd`)},
		{name: "script_without_node", text: npmShim(`run.js`)},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			shim := write(t, dir, "ast-grep.cmd", c.text)
			if c.name == "target_is_batch" {
				write(t, dir, "inner.cmd", "@echo off\r\n")
			}
			cli, started := fakeCLI(t, shim)
			if c.name == "script_without_node" {
				write(t, dir, "run.js", "// launcher\n")
				t.Setenv("PATH", t.TempDir()) // no node.exe anywhere
			}
			_, err := cli.Find(context.Background(), q, src)
			if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "batch file") || !strings.Contains(err.Error(), "ast-grep.exe") {
				t.Fatalf("got %v, want a refusal wrapping ErrUnavailable that names ast-grep.exe", err)
			}
			if len(*started) != 0 {
				t.Fatalf("started %q after refusing", *started)
			}
		})
	}
	t.Run("not_windows", func(t *testing.T) {
		// Elsewhere a .cmd file is a program like any other.
		p, pre, err := resolveProgram("/opt/x/ast-grep.cmd", "linux")
		if err != nil || p != "/opt/x/ast-grep.cmd" || pre != nil {
			t.Fatalf("got %q %q %v", p, pre, err)
		}
	})
}
