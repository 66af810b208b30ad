package format_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/internal/testenv"
)

// reindent is a fake formatter with black's behaviour on indentation: it refuses a file
// whose indentation Python would refuse (exit 123, as black does: "cannot parse"), and
// otherwise re-indents every block by 4 spaces per level. It runs in process through the
// Runner's Exec seam.
func reindent(_ context.Context, _ []string, _ string, _ []string, stdin []byte) ([]byte, []byte, error) {
	var out strings.Builder
	stack := []int{0}
	opened := false // the previous line ended with ":", so the next one must indent
	for line := range strings.Lines(string(stdin)) {
		body := strings.TrimLeft(line, " ")
		if strings.TrimSpace(body) == "" {
			out.WriteString("\n")
			continue
		}
		ind := len(line) - len(body)
		switch top := stack[len(stack)-1]; {
		case ind > top && opened:
			stack = append(stack, ind)
		case ind > top:
			return nil, []byte("error: cannot parse: unexpected indent"), &exec.ExitError{}
		case opened:
			return nil, []byte("error: cannot parse: expected an indented block"), &exec.ExitError{}
		default:
			for len(stack) > 1 && stack[len(stack)-1] > ind {
				stack = stack[:len(stack)-1]
			}
			if stack[len(stack)-1] != ind {
				return nil, []byte("error: cannot parse: unindent does not match any outer indentation level"), &exec.ExitError{}
			}
		}
		opened = strings.HasSuffix(strings.TrimSpace(body), ":")
		out.WriteString(strings.Repeat("    ", len(stack)-1))
		out.WriteString(body)
	}
	return []byte(out.String()), nil, nil
}

var stdinMode = format.Stdin

// reindentConfig declares the fake formatter for .py files.
var reindentConfig = format.Config{Overrides: map[string]format.Override{
	"black":    {Disabled: true},
	"ruff":     {Disabled: true},
	"uv":       {Disabled: true},
	"reindent": {Args: []string{"reindent"}, Extensions: []string{".py"}, Mode: &stdinMode},
}}

// TestScopeTouchedVerified: a partial result is kept only when the formatter, run on it,
// prints what it printed for the whole edit; otherwise the edit stays as written — never a
// mix of formatted and unformatted lines that the formatter itself would not produce.
func TestScopeTouchedVerified(t *testing.T) {
	// A function indented by 2: the formatter re-indents both blocks, which the blank line
	// separates, and the edit touched only the first.
	pyOld := "def f():\n  a = 1\n  if a:\n    b = 2\n\n  c = 3\n"
	pySrc := "def f():\n  a = 10\n  if a:\n    b = 2\n\n  c = 3\n"
	// gofmt sorts imports: the added import moves to the top, far from the edit.
	imports := "\t\"b\"\n\t\"c\"\n\t\"d\"\n\t\"e\"\n\t\"f\"\n\t\"g\"\n"
	goOld := "package p\n\nimport (\n" + imports + ")\n"
	goSrc := "package p\n\nimport (\n" + imports + "\t\"a\"\n)\n"
	tests := []struct {
		name        string
		file        string
		cfg         format.Config
		old, src    string
		want        string
		wantPartial bool
		wantNote    string
	}{
		{
			name: "E20_python_reindentation_kept_in_part_is_refused", file: "m.py", cfg: reindentConfig,
			old: pyOld, src: pySrc, want: pySrc,
			wantNote: "reindent refuses it",
		},
		{
			name: "E20_go_import_moved_far_from_the_edit_is_not_dropped", file: "p.go",
			old: goOld, src: goSrc, want: goSrc,
			wantNote: "gofmt formats it differently",
		},
		{
			name: "E20_python_change_near_the_edit_only_is_verified", file: "m.py", cfg: reindentConfig,
			// Both blocks are indented by 4 already except the edited line's block.
			old:  "def f():\n    a = 1\n\ndef g():\n  b = 2\n",
			src:  "def f():\n  a = 10\n\ndef g():\n  b = 2\n",
			want: "def f():\n    a = 10\n\ndef g():\n  b = 2\n", wantPartial: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := format.Runner{Scope: format.ScopeTouched, Exec: reindent}
			res := r.Edit(context.Background(), memEnv(nil), tc.cfg, format.Builtins(), tc.file, []byte(tc.old), []byte(tc.src))
			if res.Err != nil {
				t.Fatalf("Err = %v; an unverified partial result is not a formatter failure", res.Err)
			}
			if string(res.After) != tc.want {
				t.Errorf("After =\n%s\nwant\n%s", res.After, tc.want)
			}
			if res.Partial != tc.wantPartial {
				t.Errorf("Partial = %v, want %v", res.Partial, tc.wantPartial)
			}
			if !strings.Contains(res.Note, tc.wantNote) || (tc.wantNote == "") != (res.Note == "") {
				t.Errorf("Note = %q, want it to say %q", res.Note, tc.wantNote)
			}
			if tc.wantNote != "" && !strings.Contains(res.Report(), "none were kept") {
				t.Errorf("Report = %q", res.Report())
			}
			checkDiff(t, res)
		})
	}
}

// TestScopeTouchedRealBlack is the same case with the real black: keeping only the
// re-indentation near the edit would give Python that no longer parses.
func TestScopeTouchedRealBlack(t *testing.T) {
	bin := needBinary(t, "black")
	root := testenv.TempDir(t)
	if err := os.WriteFile(filepath.Join(root, "pyproject.toml"), []byte("[tool.black]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := format.Env{Root: root, FS: os.DirFS(root), Getenv: os.Getenv, LookPath: func(name string) (string, error) {
		if name == "black" {
			return bin, nil
		}
		return "", exec.ErrNotFound
	}}
	old := "def f():\n  a = 1\n  if a:\n    b = 2\n\n  c = 3\n"
	src := "def f():\n  a = 10\n  if a:\n    b = 2\n\n  c = 3\n"
	r := format.Runner{Scope: format.ScopeTouched, Timeout: time.Minute}
	res := r.Edit(context.Background(), env, format.Config{}, format.Builtins(), "m.py", []byte(old), []byte(src))
	if res.Formatter != "black" {
		t.Fatalf("formatter %q, skipped %v, err %v", res.Formatter, res.Skipped, res.Err)
	}
	if res.Err != nil || string(res.After) != src || res.Partial || res.Note == "" {
		t.Fatalf("Err %v, Partial %v, Note %q, After:\n%s", res.Err, res.Partial, res.Note, res.After)
	}
	// What the old rule would have written: the formatted first block and the unformatted
	// second one, which Python refuses. The formatter agrees.
	whole := format.Runner{Timeout: time.Minute}
	full := whole.Bytes(context.Background(), env, format.Config{}, format.Builtins(), "m.py", []byte(src))
	if full.Err != nil || !strings.Contains(string(full.After), "    c = 3") {
		t.Fatalf("black on the whole file: %v\n%s", full.Err, full.After)
	}
	mixed := strings.Replace(string(full.After), "    c = 3", "  c = 3", 1)
	if res := whole.Bytes(context.Background(), env, format.Config{}, format.Builtins(), "m.py", []byte(mixed)); !errors.Is(res.Err, format.ErrFormatter) {
		t.Errorf("black accepted the mix %q: %v", mixed, res.Err)
	}
}

// TestScopeTouchedRealPrettier: with a canonical formatter, a part near the edit is verified
// and kept: prettier, run on the mix, prints what it printed for the whole file.
func TestScopeTouchedRealPrettier(t *testing.T) {
	bin := needBinary(t, "prettier")
	root := testenv.TempDir(t)
	os.WriteFile(filepath.Join(root, "package.json"), []byte(`{"devDependencies":{"prettier":"3"}}`), 0o644)
	env := format.Env{Root: root, FS: os.DirFS(root), Getenv: os.Getenv, LookPath: func(name string) (string, error) {
		if name == "prettier" {
			return bin, nil
		}
		return "", exec.ErrNotFound
	}}
	untouched := "function far( a,b ) {\n  return a+b\n}\n"
	old := "function edited() {\n  return 1;\n}\n\n" + untouched
	src := "function edited() {\n  return   2\n}\n\n" + untouched
	r := format.Runner{Scope: format.ScopeTouched, Timeout: time.Minute}
	res := r.Edit(context.Background(), env, format.Config{}, format.Builtins(), "a.js", []byte(old), []byte(src))
	if res.Formatter != "prettier" || res.Err != nil {
		t.Fatalf("formatter %q, err %v, skipped %v", res.Formatter, res.Err, res.Skipped)
	}
	want := "function edited() {\n  return 2;\n}\n\n" + untouched
	if !res.Partial || string(res.After) != want || res.Note != "" {
		t.Fatalf("Partial %v, Note %q, After:\n%s\nwant\n%s", res.Partial, res.Note, res.After, want)
	}
}
