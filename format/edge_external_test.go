package format_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/internal/testenv"
)

// edgeCase is one row of the edge-case table: a project on disk, fake or real formatters, a
// configuration, and what formatting one file must do.
type edgeCase struct {
	name string
	// files of the project, relative to its root. "{{root}}" in a content is the root.
	files map[string]string
	// bins are fake formatters: shell scripts put in a bin directory that LookPath
	// searches. "{{root}}" in a script is the project root.
	bins map[string]string
	// realBins must be installed (the row skips otherwise); LookPath finds them.
	realBins []string
	// ghostBins are reported by LookPath but do not exist (removed after detection).
	ghostBins []string
	cfg       string       // the formatter setting as JSON; "" = automatic mode
	extraDefs []format.Def // appended to the built-in registry
	file      string       // the file to format
	timeout   time.Duration

	wantFormatter string            // Result.Formatter
	wantArgv      string            // a substring of the winning plan's argv (joined by spaces)
	wantSkip      map[string]string // formatter → substring of its skip reason
	wantErr       error             // errors.Is target; nil = no error
	wantErrText   []string          // substrings of the error text
	wantAfter     *string           // the file on disk afterwards; nil = unchanged
	wantOthers    []string          // relative to the root
	wantStatus    map[string]string // formatter → substring of its Status reason
	maxElapsed    time.Duration     // when set, Result.Elapsed must stay under it
}

func str(s string) *string { return &s }

// script is a fake formatter's shell text.
func script(body string) string { return "#!/bin/sh\n" + body + "\n" }

// marker is a stdin formatter that passes its input through and appends one line naming
// itself, so the winner shows in the file.
func marker(name string) string { return script("cat; echo '# formatted by " + name + "'") }

// pgidLine records the formatter's process group (its own pid: it leads the group).
const pgidLine = `echo $$ > "{{root}}/.pgid"`

func TestEdgeCases(t *testing.T) {
	needShell(t)
	badGo := "package main\nfunc main(){\nprintln( 1 )\n}\n"
	tests := []edgeCase{
		{
			name:          "E1_go_bad_formatting_auto_in_process",
			files:         map[string]string{"cmd/main.go": badGo},
			file:          "cmd/main.go",
			wantFormatter: "gofmt",
			wantAfter:     str("package main\n\nfunc main() {\n\tprintln(1)\n}\n"),
		},
		{
			name:          "E2_go_syntax_error_left_as_written",
			files:         map[string]string{"main.go": "package main\nfunc main() {\n"},
			file:          "main.go",
			wantFormatter: "gofmt",
			wantErr:       format.ErrSyntax,
			wantErrText:   []string{"the Go source does not parse", "expected '}'"},
		},
		{
			name:          "E3_clang_format_without_config_skipped",
			files:         map[string]string{"src/a.c": "int main(){return 0;}\n"},
			bins:          map[string]string{"clang-format": marker("clang-format")},
			file:          "src/a.c",
			wantFormatter: "",
			wantSkip:      map[string]string{"clang-format": "no .clang-format or _clang-format above src/"},
		},
		{
			name:          "E4_clang_format_with_config_runs_via_stdin",
			files:         map[string]string{".clang-format": "BasedOnStyle: LLVM\n", "src/a.c": "int main(){return 0;}\n"},
			realBins:      []string{"clang-format"},
			file:          "src/a.c",
			wantFormatter: "clang-format",
			wantArgv:      "--assume-filename={{root}}/src/a.c",
			wantAfter:     str("int main() { return 0; }\n"),
		},
		{
			name: "E5_prettier_dependency_and_biome_json_biome_only",
			files: map[string]string{
				"package.json": `{"devDependencies": {"prettier": "^3"}}`,
				"biome.json":   `{}`,
				"web/app.ts":   "let a = 1\n",
			},
			bins:          map[string]string{"prettier": marker("prettier"), "biome": marker("biome")},
			file:          "web/app.ts",
			wantFormatter: "biome",
			wantAfter:     str("let a = 1\n# formatted by biome\n"),
			wantSkip:      map[string]string{"prettier": "biome formats this file instead"},
		},
		{
			name: "E6_pyproject_tool_ruff_and_uv_on_path_ruff_only",
			files: map[string]string{
				"pyproject.toml": "[project]\nname = \"x\"\n\n[tool.ruff]\nline-length = 100\n",
				"pkg/m.py":       "x=1\n",
			},
			bins:          map[string]string{"ruff": marker("ruff"), "uv": marker("uv")},
			file:          "pkg/m.py",
			wantFormatter: "ruff",
			wantAfter:     str("x=1\n# formatted by ruff\n"),
			wantSkip:      map[string]string{"uv": "probes are off"},
		},
		{
			name:          "E7_disabled_by_configuration",
			files:         map[string]string{"main.go": badGo},
			cfg:           `false`,
			file:          "main.go",
			wantFormatter: "",
			wantSkip:      map[string]string{"gofmt": "disabled by configuration"},
			wantStatus:    map[string]string{"gofmt": "disabled by configuration", "shfmt": "disabled by configuration"},
		},
		{
			name:          "E8_binary_only_formatter_needs_opt_in",
			files:         map[string]string{"run.sh": "if true;then\necho hi\nfi\n"},
			bins:          map[string]string{"shfmt": marker("shfmt")},
			file:          "run.sh",
			wantFormatter: "",
			wantSkip:      map[string]string{"shfmt": "needs opt-in"},
			wantStatus:    map[string]string{"shfmt": "needs opt-in", "gofmt": "in process"},
		},
		{
			name:          "E8_binary_only_formatter_runs_when_enabled",
			files:         map[string]string{"run.sh": "if true;then\necho hi\nfi\n"},
			realBins:      []string{"shfmt"},
			cfg:           `true`,
			file:          "run.sh",
			wantFormatter: "shfmt",
			wantArgv:      "--filename {{root}}/run.sh",
			wantAfter:     str("if true; then\n\techo hi\nfi\n"),
		},
		{
			name:          "E9_formatter_sleeping_60s_killed_at_timeout",
			files:         map[string]string{"run.sh": "echo hi\n"},
			bins:          map[string]string{"shfmt": script(pgidLine + "\nsleep 60 &\nsleep 60")},
			cfg:           `true`,
			file:          "run.sh",
			timeout:       300 * time.Millisecond,
			wantFormatter: "shfmt",
			wantErr:       format.ErrTimeout,
			wantErrText:   []string{"did not finish in time (its timeout is 300ms)", "process group was killed"},
			maxElapsed:    300*time.Millisecond + 100*time.Millisecond,
		},
		{
			name:          "E10_exit_1_with_garbage_on_stdout",
			files:         map[string]string{"run.sh": "echo hi\n"},
			bins:          map[string]string{"shfmt": script(pgidLine + "\nsleep 60 &\necho '%%garbage%%'\necho 'syntax error at 1:1' >&2\nexit 1")},
			cfg:           `true`,
			file:          "run.sh",
			wantFormatter: "shfmt",
			wantErr:       format.ErrFormatter,
			wantErrText:   []string{"exit code 1", "stderr: syntax error at 1:1"},
		},
		{
			name:          "E10_exit_0_with_nothing_on_stdout",
			files:         map[string]string{"run.sh": "echo hi\n"},
			bins:          map[string]string{"shfmt": script(pgidLine + "\ncat > /dev/null")},
			cfg:           `true`,
			file:          "run.sh",
			wantFormatter: "shfmt",
			wantErr:       format.ErrFormatter,
			wantErrText:   []string{"printed nothing"},
		},
		{
			name:          "E11_formatter_missing_at_run_time",
			files:         map[string]string{"run.sh": "echo hi\n"},
			ghostBins:     []string{"shfmt"},
			cfg:           `true`,
			file:          "run.sh",
			wantFormatter: "shfmt",
			wantErr:       format.ErrNotRunnable,
			wantErrText:   []string{"could not start", "install it or disable this formatter"},
		},
		{
			name:          "fault_formatter_killed_by_a_signal",
			files:         map[string]string{"run.sh": "echo hi\n"},
			bins:          map[string]string{"shfmt": script(pgidLine + "\nsleep 60 &\nkill -9 $$")},
			cfg:           `true`,
			file:          "run.sh",
			wantFormatter: "shfmt",
			wantErr:       format.ErrFormatter,
			wantErrText:   []string{"ended abnormally (signal: killed), so the file was left as written"},
		},
		{
			name:          "fault_in_place_formatter_deletes_its_copy",
			files:         map[string]string{"docs/a.txt": "hello\n"},
			bins:          map[string]string{"eater": script(pgidLine + "\nrm -f \"$1\"")},
			cfg:           `{"eater": {"command": ["eater", "$FILE"], "extensions": [".txt"]}}`,
			file:          "docs/a.txt",
			wantFormatter: "eater",
			wantErr:       format.ErrFormatter,
			wantErrText:   []string{"removed or replaced its input"},
		},
		{
			name:          "fault_in_place_formatter_killed_mid_write",
			files:         map[string]string{"docs/a.txt": "hello\n"},
			bins:          map[string]string{"halfway": script(pgidLine + "\nprintf 'hal' > \"$1\"\nkill -9 $$")},
			cfg:           `{"halfway": {"command": ["halfway", "$FILE"], "extensions": [".txt"]}}`,
			file:          "docs/a.txt",
			wantFormatter: "halfway",
			wantErr:       format.ErrFormatter,
			wantErrText:   []string{"ended abnormally (signal: killed)"},
		},
		{
			name:          "fault_in_place_formatter_leaves_a_fifo_for_its_copy",
			files:         map[string]string{"docs/a.txt": "hello\n"},
			bins:          map[string]string{"piper": script(pgidLine + "\nrm -f \"$1\"\nmkfifo \"$1\"")},
			cfg:           `{"piper": {"command": ["piper", "$FILE"], "extensions": [".txt"]}}`,
			file:          "docs/a.txt",
			wantFormatter: "piper",
			wantErr:       format.ErrFormatter,
			wantErrText:   []string{"it is now a FIFO"},
		},
		{
			name:          "fault_in_place_copy_grown_past_the_output_limit",
			files:         map[string]string{"docs/a.txt": "hello\n"},
			bins:          map[string]string{"bloat": script(pgidLine + "\nhead -c 70000000 /dev/zero > \"$1\"")},
			cfg:           `{"bloat": {"command": ["bloat", "$FILE"], "extensions": [".txt"]}}`,
			file:          "docs/a.txt",
			wantFormatter: "bloat",
			wantErr:       format.ErrFormatter,
			wantErrText:   []string{"grew past the 67108864 bytes"},
		},
		{
			name:          "fault_stdout_past_the_output_limit",
			files:         map[string]string{"run.sh": "echo hi\n"},
			bins:          map[string]string{"shfmt": script(pgidLine + "\nhead -c 70000000 /dev/zero")},
			cfg:           `true`,
			file:          "run.sh",
			wantFormatter: "shfmt",
			wantErr:       format.ErrFormatter,
			wantErrText:   []string{"printed more than 67108864 bytes"},
		},
		{
			name:  "E12_file_changed_during_formatting_their_bytes_survive",
			files: map[string]string{"run.sh": "echo hi\n"},
			bins: map[string]string{"shfmt": script(
				`printf 'echo theirs\n' > "{{root}}/run.sh"` + "\ncat; echo '# formatted'")},
			cfg:           `true`,
			file:          "run.sh",
			wantFormatter: "shfmt",
			wantErr:       format.ErrConcurrentChange,
			wantErrText:   []string{"changed while it was being formatted"},
			wantAfter:     str("echo theirs\n"),
		},
		{
			name:          "E13_crlf_input_lf_output_written_crlf",
			files:         map[string]string{"run.sh": "if true\r\nthen\r\n   echo hi\r\nfi\r\n"},
			bins:          map[string]string{"shfmt": script(`tr -d '\r' | sed 's/^ *//'`)},
			cfg:           `true`,
			file:          "run.sh",
			wantFormatter: "shfmt",
			wantAfter:     str("if true\r\nthen\r\necho hi\r\nfi\r\n"),
		},
		{
			name:          "E13_go_crlf_input_becomes_canonical_lf",
			files:         map[string]string{"main.go": "package main\r\n\r\nvar  x = 1\r\n"},
			file:          "main.go",
			wantFormatter: "gofmt",
			wantAfter:     str("package main\n\nvar x = 1\n"),
		},
		{
			name:          "E14_bom_dropped_by_formatter_restored",
			files:         map[string]string{"run.sh": "\ufeffecho hi\n"},
			bins:          map[string]string{"shfmt": script(`tail -c +4 | tr a-z A-Z`)},
			cfg:           `true`,
			file:          "run.sh",
			wantFormatter: "shfmt",
			wantAfter:     str("\ufeffECHO HI\n"),
		},
		{
			name:  "E15_in_place_formatter_rewriting_a_sibling_reported",
			files: map[string]string{"docs/a.txt": "hello\n", "docs/sibling.txt": "old\n"},
			bins: map[string]string{"sib": script(
				`printf 'world\n' >> "$1"; echo touched > "$(dirname "$1")/sibling.txt"`)},
			cfg:           `{"sib": {"command": ["sib", "$FILE"], "extensions": [".txt"]}}`,
			file:          "docs/a.txt",
			wantFormatter: "sib",
			wantAfter:     str("hello\nworld\n"),
			wantOthers:    []string{"docs/sibling.txt"},
		},
		{
			name:          "E16_gofmt_command_override_runs_gofumpt_as_subprocess",
			files:         map[string]string{"main.go": "package main\n\nvar  x = 1\n"},
			bins:          map[string]string{"gofumpt": script(`[ "$1" = -w ] && sed -i 's/  */ /g' "$2"`)},
			cfg:           `{"gofmt": {"command": ["gofumpt", "-w", "$FILE"]}}`,
			file:          "main.go",
			wantFormatter: "gofmt",
			wantArgv:      "gofumpt -w {{root}}/main.go",
			wantAfter:     str("package main\n\nvar x = 1\n"),
		},
		{
			name:          "E17_custom_deno_formatter_for_markdown",
			files:         map[string]string{"README.md": "# hi\n", "package.json": `{"devDependencies": {"prettier": "3"}}`},
			bins:          map[string]string{"deno": script(`[ "$1" = fmt ] && printf 'formatted\n' >> "$2"`), "prettier": marker("prettier")},
			cfg:           `{"deno": {"command": ["deno", "fmt", "$FILE"], "extensions": [".md"]}}`,
			file:          "README.md",
			wantFormatter: "deno",
			wantAfter:     str("# hi\nformatted\n"),
			wantSkip:      map[string]string{"prettier": "deno formats this file instead, one formatter per file (a user-configured command beats a manifest entry)"},
		},
		{
			name:  "E18_html_erb_longest_suffix_wins",
			files: map[string]string{"views/a.html.erb": "<p>hi</p>\n"},
			bins: map[string]string{
				"htmlbeautifier": script(`printf '<!-- beautified -->\n' >> "$1"`),
				"erbonly":        script(`printf '<%%# erb only %%>\n' >> "$1"`),
			},
			cfg:           `{"htmlbeautifier": {}, "erbonly": {"command": ["erbonly", "$FILE"], "extensions": [".erb"]}}`,
			file:          "views/a.html.erb",
			wantFormatter: "htmlbeautifier",
			wantAfter:     str("<p>hi</p>\n<!-- beautified -->\n"),
		},
		{
			name:  "E19_dockerfile_matched_by_filenames",
			files: map[string]string{"Dockerfile": "from alpine\n"},
			bins:  map[string]string{"dockfmt": script(`sed 's/^from/FROM/'`)},
			extraDefs: []format.Def{{Name: "dockfmt", Filenames: []string{"Dockerfile"}, Args: []string{"dockfmt"},
				Mode: format.Stdin, Evidence: []format.Evidence{{Binary: "dockfmt"}}, NeedsOptIn: true}},
			cfg:           `true`,
			file:          "Dockerfile",
			wantFormatter: "dockfmt",
			wantAfter:     str("FROM alpine\n"),
		},
	}
	patched := 0
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if runEdgeCase(t, tc) {
				patched++
			}
		})
	}
	t.Logf("%d of %d rows' diffs also applied with the patch package", patched, len(tests))
}

// runEdgeCase builds the row's project, formats its file with Runner.File and checks the
// result. It reports whether the diff was checked with the patch package.
func runEdgeCase(t *testing.T, tc edgeCase) bool {
	root := testenv.TempDir(t)
	root, _ = filepath.EvalSymlinks(root)
	sub := func(s string) string { return strings.ReplaceAll(s, "{{root}}", root) }
	for name, content := range tc.files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(sub(content)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := testenv.TempDir(t)
	for name, body := range tc.bins {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(sub(body)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	real := map[string]string{}
	for _, name := range tc.realBins {
		real[name] = needBinary(t, name)
	}
	lookPath := func(name string) (string, error) {
		if p, ok := real[name]; ok {
			return p, nil
		}
		if slices.Contains(tc.ghostBins, name) {
			return filepath.Join(bin, name), nil
		}
		if _, ok := tc.bins[name]; ok {
			return filepath.Join(bin, name), nil
		}
		return "", exec.ErrNotFound
	}
	var cfg format.Config
	if tc.cfg != "" {
		if err := json.Unmarshal([]byte(tc.cfg), &cfg); err != nil {
			t.Fatal(err)
		}
	}
	reg := append(format.Builtins(), tc.extraDefs...)
	if err := cfg.Validate(reg); err != nil {
		t.Fatal(err)
	}
	env := format.Env{Root: root, FS: os.DirFS(root), LookPath: lookPath, Getenv: func(string) string { return "" }}
	before, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(tc.file)))

	plans, _ := format.Detect(env, cfg, reg, tc.file)
	if tc.wantArgv != "" {
		if len(plans) != 1 || !strings.Contains(strings.Join(plans[0].Argv, " "), sub(tc.wantArgv)) {
			t.Errorf("plans %+v: want one whose argv contains %q", plans, sub(tc.wantArgv))
		}
	}
	r := format.Runner{Timeout: tc.timeout}
	res := r.File(context.Background(), env, cfg, reg, tc.file)

	if res.Formatter != tc.wantFormatter {
		t.Errorf("Formatter = %q, want %q (skipped %v, err %v)", res.Formatter, tc.wantFormatter, res.Skipped, res.Err)
	}
	for name, want := range tc.wantSkip {
		i := slices.IndexFunc(res.Skipped, func(s format.Skip) bool { return s.Name == name })
		if i < 0 || !strings.Contains(res.Skipped[i].Reason, want) {
			t.Errorf("skip of %s: want reason containing %q, skipped %v", name, want, res.Skipped)
		}
	}
	if tc.wantErr == nil && res.Err != nil {
		t.Errorf("unexpected error: %v", res.Err)
	}
	if tc.wantErr != nil {
		var fe *format.Error
		if !errors.Is(res.Err, tc.wantErr) || !errors.As(res.Err, &fe) {
			t.Errorf("Err = %v, want an *Error that is %v", res.Err, tc.wantErr)
		}
		for _, s := range tc.wantErrText {
			if res.Err == nil || !strings.Contains(res.Err.Error(), s) {
				t.Errorf("Err = %v, want it to mention %q", res.Err, s)
			}
		}
	}
	after, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(tc.file)))
	want := string(before)
	if tc.wantAfter != nil {
		want = *tc.wantAfter
	}
	if string(after) != want {
		t.Errorf("file on disk = %q, want %q", after, want)
	}
	if string(res.After) != string(after) {
		t.Errorf("Result.After = %q, but the disk holds %q", res.After, after)
	}
	var others []string
	for _, o := range res.Others {
		rel, _ := filepath.Rel(root, o)
		others = append(others, filepath.ToSlash(rel))
	}
	if !slices.Equal(others, tc.wantOthers) {
		t.Errorf("Others = %v, want %v", others, tc.wantOthers)
	}
	if tc.maxElapsed > 0 && res.Elapsed > tc.maxElapsed {
		t.Errorf("took %v, want at most %v", res.Elapsed, tc.maxElapsed)
	}
	if tc.wantStatus != nil {
		states := format.Status(env, cfg, reg)
		for name, want := range tc.wantStatus {
			i := slices.IndexFunc(states, func(s format.State) bool { return s.Name == name })
			if i < 0 || !strings.Contains(states[i].Reason, want) {
				t.Errorf("Status of %s: want reason containing %q, got %+v", name, want, states)
			}
		}
	}
	// Every process the fake formatter started is gone: count its process group.
	if b, err := os.ReadFile(filepath.Join(root, ".pgid")); err == nil {
		pgid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if n := waitGroupGone(pgid, 5*time.Second); n != 0 {
			t.Errorf("%d processes left in the formatter's group %d", n, pgid)
		}
	}
	// No temporary file is left next to the file.
	var l []string
	for _, pattern := range []string{"*hkfmt*", ".*.hk-*", filepath.Join("*", "*hkfmt*"), filepath.Join("*", ".*.hk-*")} {
		m, _ := filepath.Glob(filepath.Join(root, pattern))
		l = append(l, m...)
	}
	if len(l) > 0 {
		t.Errorf("temporary files left: %v", l)
	}
	if res.Err == nil && res.Changed {
		res.Before = before
		return checkDiff(t, res)
	}
	return false
}

// TestTimeoutIsNotAContextError: a formatter's own timeout does not look like the caller's
// context ending (adapters send context errors to the host channel).
func TestTimeoutIsNotAContextError(t *testing.T) {
	needShell(t)
	root := testenv.TempDir(t)
	bin := filepath.Join(testenv.TempDir(t), "slow")
	os.WriteFile(bin, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755)
	os.WriteFile(filepath.Join(root, "a.sh"), []byte("echo hi\n"), 0o644)
	env := format.Env{Root: root, FS: os.DirFS(root), LookPath: func(string) (string, error) { return bin, nil }}
	for _, r := range []format.Runner{{Timeout: 50 * time.Millisecond}, {FileTimeout: 50 * time.Millisecond}} {
		res := r.File(context.Background(), env, format.Config{Enabled: format.On()}, format.Builtins(), "a.sh")
		if !errors.Is(res.Err, format.ErrTimeout) || errors.Is(res.Err, context.DeadlineExceeded) {
			t.Errorf("%+v: Err = %v: want ErrTimeout without context.DeadlineExceeded", r, res.Err)
		}
	}
}
