package format

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/internal/testenv"
)

// The batch files npm's cmd-shim writes, in its three shapes (CRLF, as on disk).
const (
	shimNode = "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\nCALL :find_dp0\r\n\r\n" +
		"IF EXIST \"%dp0%\\node.exe\" (\r\n  SET \"_prog=%dp0%\\node.exe\"\r\n) ELSE (\r\n  SET \"_prog=node\"\r\n  SET PATHEXT=%PATHEXT:;.JS;=;%\r\n)\r\n\r\n" +
		"endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & \"%_prog%\"  \"%dp0%\\..\\prettier\\bin\\prettier.cjs\" %*\r\n"
	shimNodeFlags = "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\nCALL :find_dp0\r\n@SET NODE_OPTIONS=--max-old-space-size=4096\r\n\r\n" +
		"IF EXIST \"%dp0%\\node.exe\" (\r\n  SET \"_prog=%dp0%\\node.exe\"\r\n) ELSE (\r\n  SET \"_prog=node\"\r\n  SET PATHEXT=%PATHEXT:;.JS;=;%\r\n)\r\n\r\n" +
		"endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & \"%_prog%\" --no-warnings \"%dp0%\\..\\tool\\cli.js\" %*\r\n"
	shimOld = "@IF EXIST \"%~dp0\\node.exe\" (\r\n  \"%~dp0\\node.exe\"  \"%~dp0\\..\\prettier\\bin-prettier.js\" %*\r\n) ELSE (\r\n  @SETLOCAL\r\n" +
		"  @SET PATHEXT=%PATHEXT:;.JS;=;%\r\n  node  \"%~dp0\\..\\prettier\\bin-prettier.js\" %*\r\n)\r\n"
	shimExe = "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\nCALL :find_dp0\r\n\"%dp0%\\..\\@biomejs\\cli-win32-x64\\biome.exe\"   %*\r\n"
)

// fakeWindows is a Windows host over the files of a map (on any OS): lookPath finds the
// names in bins.
func fakeWindows(files map[string]string, bins map[string]string) hostOS {
	return hostOS{
		windows: true,
		readFile: func(p string) ([]byte, error) {
			if s, ok := files[p]; ok {
				return []byte(s), nil
			}
			return nil, os.ErrNotExist
		},
		exists: func(p string) bool { _, ok := files[p]; return ok },
		lookPath: func(name string) (string, error) {
			if p, ok := bins[name]; ok {
				return p, nil
			}
			return "", exec.ErrNotFound
		},
		getenv: func(string) string { return "" },
	}
}

// TestCmdShimInjection: a file named x&ver&echo.ts made format run `ver` through an npm
// .cmd shim on Windows (cmd.exe reads & as "and then"). The shim is replaced by the program
// it starts, so cmd.exe never sees the name; a batch file that is not a shim gets only
// arguments cmd.exe reads literally, and is refused otherwise.
func TestCmdShimInjection(t *testing.T) {
	bin := filepath.Join("proj", "node_modules", ".bin")
	shim := filepath.Join(bin, "prettier.cmd")
	evil := filepath.Join("proj", "src", "x&ver&echo.ts")
	tests := []struct {
		name     string
		files    map[string]string
		bins     map[string]string
		argv     []string
		want     []string
		wantEnv  []string
		refused  bool
		windows  bool
		keepArgv bool
	}{
		{
			name: "npm_shim_runs_node_on_the_script", windows: true,
			files: map[string]string{shim: shimNode}, bins: map[string]string{"prettier": shim, "node": "node.exe"},
			argv: []string{"prettier", "--stdin-filepath", evil},
			want: []string{"node.exe", filepath.Join("proj", "node_modules", "prettier", "bin", "prettier.cjs"), "--stdin-filepath", evil},
		},
		{
			name: "node_next_to_the_shim_wins", windows: true,
			files: map[string]string{shim: shimNode, filepath.Join(bin, "node.exe"): ""}, bins: map[string]string{"prettier": shim, "node": "node.exe"},
			argv: []string{"prettier", evil},
			want: []string{filepath.Join(bin, "node.exe"), filepath.Join("proj", "node_modules", "prettier", "bin", "prettier.cjs"), evil},
		},
		{
			name: "shebang_flags_and_variables", windows: true,
			files: map[string]string{shim: shimNodeFlags}, bins: map[string]string{"prettier": shim, "node": "node.exe"},
			argv:    []string{"prettier", evil},
			want:    []string{"node.exe", "--no-warnings", filepath.Join("proj", "node_modules", "tool", "cli.js"), evil},
			wantEnv: []string{"NODE_OPTIONS=--max-old-space-size=4096"},
		},
		{
			name: "older_shim", windows: true,
			files: map[string]string{shim: shimOld}, bins: map[string]string{"prettier": shim, "node": "node.exe"},
			argv: []string{"prettier", evil},
			want: []string{"node.exe", filepath.Join("proj", "node_modules", "prettier", "bin-prettier.js"), evil},
		},
		{
			name: "shim_of_an_executable", windows: true,
			files: map[string]string{shim: shimExe}, bins: map[string]string{"biome": shim},
			argv: []string{"biome", "format", "--stdin-file-path=" + evil},
			want: []string{filepath.Join("proj", "node_modules", "@biomejs", "cli-win32-x64", "biome.exe"), "format", "--stdin-file-path=" + evil},
		},
		{
			name: "other_batch_file_with_a_plain_name_runs", windows: true,
			files: map[string]string{"fmt.bat": "@echo off\r\nmyfmt %1\r\n"}, bins: map[string]string{"fmt": "fmt.bat"},
			argv: []string{"fmt", filepath.Join("proj", "src", "a b.ts")},
			want: []string{"fmt.bat", filepath.Join("proj", "src", "a b.ts")},
		},
		{
			name: "other_batch_file_with_an_ampersand_is_refused", windows: true,
			files: map[string]string{"fmt.bat": "@echo off\r\nmyfmt %1\r\n"}, bins: map[string]string{"fmt": "fmt.bat"},
			argv: []string{"fmt", evil}, refused: true,
		},
		{
			name: "percent_quote_caret_bang_are_refused", windows: true,
			files: map[string]string{"fmt.cmd": "@myfmt %*\r\n"}, bins: map[string]string{"fmt": "fmt.cmd"},
			argv: []string{"fmt", `%PATH%`, `a"b`, `a^b`, `a!b`}, refused: true,
		},
		{
			name: "a_shim_naming_a_batch_file_is_not_followed", windows: true,
			files: map[string]string{shim: strings.Replace(shimExe, `biome.exe`, `biome.cmd`, 1)}, bins: map[string]string{"biome": shim},
			argv: []string{"biome", evil}, refused: true,
		},
		{
			name: "an_exe_is_run_as_is", windows: true,
			bins: map[string]string{"clang-format": "clang-format.exe"},
			argv: []string{"clang-format", "--assume-filename=" + evil}, keepArgv: true,
		},
		{
			name: "not_windows", windows: false,
			files: map[string]string{shim: shimNode}, bins: map[string]string{"prettier": shim},
			argv: []string{"prettier", evil}, keepArgv: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := fakeWindows(tc.files, tc.bins)
			h.windows = tc.windows
			got, env, err := command(h, tc.argv)
			if tc.refused {
				if err == nil || !strings.Contains(err.Error(), "cmd.exe") {
					t.Fatalf("argv %q, err %v; want a refusal that names cmd.exe", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if tc.keepArgv {
				want = tc.argv
			}
			if !slices.Equal(got, want) || !slices.Equal(env, tc.wantEnv) {
				t.Errorf("argv %q env %q, want %q env %q", got, env, want, tc.wantEnv)
			}
		})
	}
}

// TestMain lets the test binary stand in for node (HK_FORMAT_FAKE_NODE names the file where
// it writes the arguments it got, one a line; it copies stdin to stdout), so that the shim
// test runs a real program on every system, Windows included.
func TestMain(m *testing.M) {
	if out := os.Getenv("HK_FORMAT_FAKE_NODE"); out != "" {
		os.WriteFile(out, []byte(strings.Join(os.Args[1:], "\n")+"\n"), 0o644)
		io.Copy(os.Stdout, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestCmdShimThroughRunner runs a formatter whose command is an npm shim through the Runner
// with the Windows rules on: the program the shim names (this test binary standing in for
// node) gets the file name with its & intact as one argument, and a batch file that is not a
// shim is refused with ErrNotRunnable and the file left as written.
func TestCmdShimThroughRunner(t *testing.T) {
	dir := testenv.TempDir(t)
	bin := filepath.Join(dir, "node_modules", ".bin")
	os.MkdirAll(bin, 0o755)
	shim := filepath.Join(bin, "fmtjs.cmd")
	os.WriteFile(shim, []byte(shimNode), 0o644)
	args := filepath.Join(dir, "args.txt")
	node, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HK_FORMAT_FAKE_NODE", args)
	h := hostOS{windows: true, readFile: os.ReadFile,
		exists: func(p string) bool { _, err := os.Stat(p); return err == nil },
		lookPath: func(name string) (string, error) {
			switch name {
			case "fmtjs":
				return shim, nil
			case "node":
				return node, nil
			case "plain":
				return filepath.Join(dir, "plain.bat"), nil
			}
			if filepath.IsAbs(name) {
				return name, nil
			}
			return "", exec.ErrNotFound
		},
		getenv: os.Getenv,
	}
	env := Env{Root: dir, FS: os.DirFS(dir), LookPath: h.lookPath, Getenv: os.Getenv}
	stdin := Stdin
	for _, tc := range []struct {
		name    string
		command string
		refused bool
	}{
		{name: "npm_shim", command: "fmtjs"},
		{name: "plain_batch_file", command: "plain", refused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Overrides: map[string]Override{"fake": {Args: []string{tc.command, "--stdin-filepath", "{file}"}, Extensions: []string{".ts"}, Mode: &stdin}}}
			r := Runner{sys: &h, Timeout: time.Minute}
			res := r.Bytes(context.Background(), env, cfg, Builtins(), "x&ver&echo.ts", []byte("let a = 1\n"))
			if tc.refused {
				if !errors.Is(res.Err, ErrNotRunnable) || string(res.After) != "let a = 1\n" {
					t.Fatalf("Err %v, After %q", res.Err, res.After)
				}
				return
			}
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			got, _ := os.ReadFile(args)
			want := filepath.Join(dir, "node_modules", "prettier", "bin", "prettier.cjs") + "\n--stdin-filepath\n" + filepath.Join(dir, "x&ver&echo.ts") + "\n"
			if string(got) != want || string(res.After) != "let a = 1\n" {
				t.Errorf("the program got\n%s\nwant\n%s(output %q)", got, want, res.After)
			}
		})
	}
}

// FuzzNpmShim: for any batch file, reading it as a shim never panics, and what it yields is
// never a batch file and carries nothing cmd.exe would expand. Seeds are the shapes above.
func FuzzNpmShim(f *testing.F) {
	for _, s := range []string{shimNode, shimNodeFlags, shimOld, shimExe, "\"%dp0%\\a.cmd\" %*", "& \"%_prog%\" \"%dp0%\\\" %*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		h := fakeWindows(map[string]string{"s.cmd": data, "node.exe": ""}, map[string]string{"node": "node.exe", "x": "x.cmd"})
		argv, _, ok := npmShim(h, "s.cmd")
		if !ok {
			return
		}
		if len(argv) == 0 {
			t.Fatal("ok with no program")
		}
		if ext := strings.ToLower(filepath.Ext(argv[0])); ext == ".cmd" || ext == ".bat" {
			t.Fatalf("resolved to a batch file: %q", argv)
		}
		for _, a := range argv {
			if strings.ContainsAny(a, "%!\"") {
				t.Fatalf("argument %q keeps cmd.exe syntax: %q", a, argv)
			}
		}
	})
}
