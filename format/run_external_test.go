package format_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/internal/testenv"
)

// TestScopeTouched: with ScopeTouched only the formatter's changes near the edit are kept.
func TestScopeTouched(t *testing.T) {
	untouched := "func untouched( ) {\nx:=1\n_ = x\n}\n"
	old := "package p\n\n" + untouched + "\nfunc edited() {\n\treturn\n}\n"
	src := "package p\n\n" + untouched + "\nfunc edited() {\n\ty:=2\n\t_ = y\n\treturn\n}\n"
	tests := []struct {
		name        string
		scope       format.Scope
		old, src    string
		want        string
		wantPartial bool
	}{
		{
			name: "E20_touched_scope_formats_only_the_edited_hunk", scope: format.ScopeTouched, old: old, src: src,
			want:        "package p\n\n" + untouched + "\nfunc edited() {\n\ty := 2\n\t_ = y\n\treturn\n}\n",
			wantPartial: true,
		},
		{
			name: "E20_file_scope_formats_everything", scope: format.ScopeFile, old: old, src: src,
			want: "package p\n\nfunc untouched() {\n\tx := 1\n\t_ = x\n}\n\nfunc edited() {\n\ty := 2\n\t_ = y\n\treturn\n}\n",
		},
		{
			name: "E20_touched_scope_new_file_formats_everything", scope: format.ScopeTouched, old: "", src: "package p\nvar  x = 1\n",
			want: "package p\n\nvar x = 1\n",
		},
	}
	env := memEnv(nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := format.Runner{Scope: tc.scope}
			res := r.Edit(context.Background(), env, format.Config{}, format.Builtins(), "p/p.go", []byte(tc.old), []byte(tc.src))
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if string(res.After) != tc.want {
				t.Errorf("After =\n%s\nwant\n%s", res.After, tc.want)
			}
			if res.Partial != tc.wantPartial {
				t.Errorf("Partial = %v, want %v", res.Partial, tc.wantPartial)
			}
			checkDiff(t, res)
		})
	}
}

// realFormatters are the formatters the idempotence case runs when installed, each with a
// small badly formatted input and the project evidence it needs.
var realFormatters = []struct {
	name, bin, file, src string
	files                map[string]string
}{
	{name: "gofmt", file: "a.go", src: "package a\nfunc f( ) {x:=1\n_=x}\n"},
	{name: "clang-format", bin: "clang-format", file: "a.c", src: "int  main( ){int x=1;\nreturn x;}\n", files: map[string]string{".clang-format": "BasedOnStyle: LLVM\n"}},
	{name: "shfmt", bin: "shfmt", file: "a.sh", src: "if true;then\necho  hi\nfi\n"},
	{name: "prettier", bin: "prettier", file: "a.ts", src: "const a = {b:1,\nc:2}\n", files: map[string]string{"package.json": `{"devDependencies":{"prettier":"3"}}`}},
	{name: "biome", bin: "biome", file: "a.ts", src: "const a = {b:1,\nc:2}\n", files: map[string]string{"biome.json": "{}"}},
	{name: "black", bin: "black", file: "a.py", src: "x = [1,2,\n 3]\n", files: map[string]string{"pyproject.toml": "[tool.black]\n"}},
	{name: "rustfmt", bin: "rustfmt", file: "src/main.rs", src: "fn main(){let x=1;println!(\"{}\",x);}\n", files: map[string]string{"Cargo.toml": "[package]\nname = \"a\"\nedition = \"2021\"\n"}},
}

// TestIdempotence: format(format(x)) == format(x) for each real formatter on this machine.
func TestIdempotence(t *testing.T) {
	for _, rf := range realFormatters {
		t.Run("E22_idempotent_"+rf.name, func(t *testing.T) {
			var lookPath func(string) (string, error)
			if rf.bin != "" {
				p := needBinary(t, rf.bin)
				lookPath = func(name string) (string, error) {
					if name == rf.bin {
						return p, nil
					}
					return "", exec.ErrNotFound
				}
			} else {
				lookPath = fakePath()
			}
			root := testenv.TempDir(t)
			for name, c := range rf.files {
				os.WriteFile(filepath.Join(root, name), []byte(c), 0o644)
			}
			os.MkdirAll(filepath.Join(root, filepath.Dir(rf.file)), 0o755)
			env := format.Env{Root: root, FS: os.DirFS(root), LookPath: lookPath, Getenv: os.Getenv}
			r := format.Runner{Timeout: time.Minute} // node formatters start slowly on a loaded machine
			cfg := format.Config{Enabled: format.On()}
			once := r.Bytes(context.Background(), env, cfg, format.Builtins(), rf.file, []byte(rf.src))
			if once.Err != nil || once.Formatter != rf.name {
				t.Fatalf("first pass: formatter %q, err %v, skipped %v", once.Formatter, once.Err, once.Skipped)
			}
			if !once.Changed {
				t.Errorf("the sample was already formatted: it tests nothing")
			}
			checkDiff(t, once)
			twice := r.Bytes(context.Background(), env, cfg, format.Builtins(), rf.file, once.After)
			if twice.Err != nil || twice.Changed {
				t.Errorf("second pass changed the file (err %v):\n%s", twice.Err, twice.Diff)
			}
		})
	}
}

// TestCancelKillsGroup: cancelling the context kills the formatter's whole process group
// and leaves the file as written.
func TestCancelKillsGroup(t *testing.T) {
	needShell(t)
	root := testenv.TempDir(t)
	bin := filepath.Join(testenv.TempDir(t), "hang")
	os.WriteFile(bin, []byte("#!/bin/sh\necho $$ > "+root+"/.pgid\nsleep 60 &\nsleep 60\n"), 0o755)
	os.WriteFile(filepath.Join(root, "a.sh"), []byte("echo hi\n"), 0o644)
	env := format.Env{Root: root, FS: os.DirFS(root), LookPath: func(n string) (string, error) { return bin, nil }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan format.Result)
	go func() {
		r := format.Runner{}
		done <- r.File(ctx, env, format.Config{Enabled: format.On()}, format.Builtins(), "a.sh")
	}()
	var pgid int
	for i := 0; i < 3000 && pgid == 0; i++ { // up to 30 s on a loaded machine
		if b, err := os.ReadFile(filepath.Join(root, ".pgid")); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			pgid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if pgid == 0 {
		t.Fatal("the formatter never started")
	}
	cancel()
	res := <-done
	if !errors.Is(res.Err, context.Canceled) {
		t.Errorf("Err = %v, want it to wrap context.Canceled", res.Err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.sh")); string(b) != "echo hi\n" {
		t.Errorf("file = %q, want it as written", b)
	}
	if n := waitGroupGone(pgid, 5*time.Second); n != 0 {
		t.Errorf("%d processes left in group %d", n, pgid)
	}
}

// TestKeepsMode: the write-back keeps the file's permission bits.
func TestKeepsMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permission bits: Windows keeps only a read-only attribute")
	}
	root := testenv.TempDir(t)
	p := filepath.Join(root, "tool.go")
	os.WriteFile(p, []byte("package main\nvar  x = 1\n"), 0o755)
	os.Chmod(p, 0o751)
	env := format.Env{Root: root, FS: os.DirFS(root), LookPath: fakePath()}
	var r format.Runner
	res := r.File(context.Background(), env, format.Config{}, format.Builtins(), p)
	if res.Err != nil || !res.Changed {
		t.Fatalf("res %+v", res)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o751 {
		t.Errorf("mode %v, want 0751", fi.Mode().Perm())
	}
}

// TestOutsideRoot: File refuses a path outside the root.
func TestOutsideRoot(t *testing.T) {
	root := testenv.TempDir(t)
	env := format.Env{Root: root, LookPath: fakePath()}
	var r format.Runner
	for _, p := range []string{"../x.go", filepath.Join(filepath.Dir(root), "x.go")} {
		res := r.File(context.Background(), env, format.Config{}, format.Builtins(), p)
		if !errors.Is(res.Err, format.ErrOutside) {
			t.Errorf("%s: Err = %v, want ErrOutside", p, res.Err)
		}
	}
}

// TestReport: the text a model is told.
func TestReport(t *testing.T) {
	short := format.Result{Path: "a.go", Formatter: "gofmt", Changed: true, Diff: "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n"}
	if got, want := short.Report(), "formatted by gofmt, 2 lines changed (+1 -1):\n"+short.Diff; got != want {
		t.Errorf("short report %q, want %q", got, want)
	}
	long := short
	long.Diff = "--- a/a.go\n+++ b/a.go\n@@ -1,39 +1,39 @@\n" + strings.Repeat("-x\n+y\n", 20)
	if got := long.Report(); !strings.Contains(got, "re-read a.go before editing it again") || strings.Contains(got, "-x") {
		t.Errorf("long report %q", got)
	}
	failed := format.Result{Path: "a.go", Formatter: "gofmt", Err: errors.New("boom")}
	if got := failed.Report(); got != "not formatted, left as written: boom" {
		t.Errorf("failed report %q", got)
	}
	if got := (format.Result{Path: "a.txt"}).Report(); got != "" {
		t.Errorf("no formatter: %q", got)
	}
}

// TestStdinFormsInHelp checks the registry's stdin flags against each installed tool's own
// help text, so a renamed flag is caught here rather than as a failed format.
func TestStdinFormsInHelp(t *testing.T) {
	for _, tc := range []struct {
		bin  string
		help []string
		flag string
	}{
		{bin: "clang-format", help: []string{"--help"}, flag: "--assume-filename"},
		{bin: "shfmt", help: []string{"--help"}, flag: "--filename"},
		{bin: "prettier", help: []string{"--help"}, flag: "--stdin-filepath"},
		{bin: "biome", help: []string{"format", "--help"}, flag: "--stdin-file-path"},
		{bin: "black", help: []string{"--help"}, flag: "--stdin-filename"},
		{bin: "ruff", help: []string{"format", "--help"}, flag: "--stdin-filename"},
		{bin: "rustfmt", help: []string{"--help"}, flag: "--edition"},
	} {
		t.Run(tc.bin, func(t *testing.T) {
			p := needBinary(t, tc.bin)
			out, _ := exec.Command(p, tc.help...).CombinedOutput()
			if !strings.Contains(string(out), tc.flag) {
				t.Errorf("%s %s does not mention %s:\n%s", tc.bin, strings.Join(tc.help, " "), tc.flag, out)
			}
			for _, d := range format.Builtins() {
				if d.Name == tc.bin && !strings.Contains(strings.Join(d.Args, " "), tc.flag) {
					t.Errorf("registry's %s command %q lacks %s", d.Name, d.Args, tc.flag)
				}
			}
		})
	}
}

// TestCancelledBeforeStart: a context already cancelled formats nothing, even in process.
func TestCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var r format.Runner
	res := r.Bytes(ctx, memEnv(nil), format.Config{}, format.Builtins(), "a.go", []byte("package a\nvar  x = 1\n"))
	if !errors.Is(res.Err, context.Canceled) || !errors.Is(res.Err, format.ErrTimeout) || res.Changed {
		t.Errorf("res %+v", res)
	}
}

// TestOutputReadToTheEnd: the runner reads a formatter's output until its end, however slow
// the copy, and a background child left holding the pipes is killed rather than taken for a
// failure; only a holder that escaped the killing (it left the session and cleared its
// environment) fails the run, DefaultWaitDelay after the kill.
func TestOutputReadToTheEnd(t *testing.T) {
	needShell(t)
	big := strings.Repeat("0123456789abcdef\n", 1<<18) // 4.25 MiB, far more than a pipe holds
	tests := []struct {
		name    string
		body    string
		stdin   string
		want    string
		wantErr string
	}{
		{name: "big_output_at_exit", body: "cat", stdin: big, want: big},
		{name: "in_group_child_holding_stdout_is_killed", body: "cat\n(sleep 30; echo late) &", stdin: "x\n", want: "x\n"},
		{name: "stdin_not_read", body: "echo done", stdin: big, want: "done\n"},
		{
			name: "escaped_holder_fails_the_run", stdin: "x\n", wantErr: "left a process holding its output open",
			body: `setsid env -i /bin/sh -c ': > "$0"; exec sleep 4' "$0.held" &` + "\nuntil [ -e \"$0.held\" ]; do sleep 0.01; done\ncat",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := testenv.TempDir(t)
			bin := filepath.Join(dir, "fmt.sh")
			os.WriteFile(bin, []byte("#!/bin/sh\n"+tc.body+"\n"), 0o755)
			stdin := format.Stdin
			cfg := format.Config{Overrides: map[string]format.Override{"f": {Args: []string{bin}, Extensions: []string{".txt"}, Mode: &stdin}}}
			env := format.Env{Root: dir, FS: os.DirFS(dir), LookPath: exec.LookPath, Getenv: os.Getenv}
			r := format.Runner{Timeout: time.Minute}
			start := time.Now()
			res := r.Bytes(context.Background(), env, cfg, format.Builtins(), "a.txt", []byte(tc.stdin))
			took := time.Since(start)
			if tc.wantErr != "" {
				if !errors.Is(res.Err, format.ErrFormatter) || !strings.Contains(res.Err.Error(), tc.wantErr) {
					t.Fatalf("Err = %v, want %q", res.Err, tc.wantErr)
				}
				if took < format.DefaultWaitDelay {
					t.Errorf("returned after %v, before the wait for the holder (%v)", took, format.DefaultWaitDelay)
				}
				return
			}
			if res.Err != nil {
				t.Fatalf("Err = %v", res.Err)
			}
			if string(res.After) != tc.want {
				t.Errorf("After has %d bytes, want %d", len(res.After), len(tc.want))
			}
		})
	}
}

// TestExecPanics: a host's ExecFunc that panics is a formatter failure, not a crash: the
// content stays as written, and File leaves the file untouched.
func TestExecPanics(t *testing.T) {
	dir := testenv.TempDir(t)
	p := filepath.Join(dir, "a.txt")
	os.WriteFile(p, []byte("as written\n"), 0o644)
	stdin := format.Stdin
	cfg := format.Config{Overrides: map[string]format.Override{"boom": {Args: []string{"boom"}, Extensions: []string{".txt"}, Mode: &stdin}}}
	r := format.Runner{Exec: func(context.Context, []string, string, []string, []byte) ([]byte, []byte, error) { panic("boom") }}
	env := format.Env{Root: dir, FS: os.DirFS(dir), LookPath: fakePath(), Getenv: os.Getenv}
	for _, res := range []format.Result{
		r.Bytes(context.Background(), env, cfg, format.Builtins(), "a.txt", []byte("as written\n")),
		r.File(context.Background(), env, cfg, format.Builtins(), "a.txt"),
	} {
		if !errors.Is(res.Err, format.ErrFormatter) || !strings.Contains(res.Err.Error(), "panicked: boom") || string(res.After) != "as written\n" {
			t.Errorf("Err %v, After %q", res.Err, res.After)
		}
	}
	if b, _ := os.ReadFile(p); string(b) != "as written\n" {
		t.Errorf("file = %q", b)
	}
}
