package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// formatProject copies testdata/format/project (dropping the .in suffix of the Go samples) into a temporary directory and returns it.
func formatProject(t *testing.T) string {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("testdata", "format", "project")
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		// The Go samples are stored as .go.in so that gofmt -l over the repository skips them.
		if err := os.WriteFile(filepath.Join(tmp, strings.TrimSuffix(e.Name(), ".in")), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tmp
}

// TestFormatCLIGolden formats the sample project (gofmt in process only, so the output is
// the same on every machine) in text and JSON, and checks the files on disk afterwards.
func TestFormatCLIGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{name: "text", args: nil},
		{name: "json", args: []string{"-json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := formatProject(t)
			args := append([]string{"format", "-root", tmp}, tc.args...)
			args = append(args, "hello.go", "tidy.go", "broken.go", "style.c", "notes.txt")
			var out, errb bytes.Buffer
			code := run(t.Context(), args, strings.NewReader(""), &out, &errb)
			if code != exitRefused || errb.Len() > 0 {
				t.Fatalf("exit %d (want 1: broken.go cannot be formatted), stderr %q", code, errb.String())
			}
			checkGolden(t, filepath.Join("testdata", "format", tc.name+".golden"), strings.ReplaceAll(out.String(), tmp, "$TMP"))
			got, _ := os.ReadFile(filepath.Join(tmp, "hello.go"))
			want := "package demo\n\nimport \"fmt\"\n\nfunc Hello(name string) string {\n\treturn fmt.Sprintf(\"hello, %s\", name)\n}\n"
			if string(got) != want {
				t.Errorf("hello.go on disk:\n%s\nwant\n%s", got, want)
			}
			orig, _ := os.ReadFile(filepath.Join("testdata", "format", "project", "broken.go.in"))
			if got, _ := os.ReadFile(filepath.Join(tmp, "broken.go")); !bytes.Equal(got, orig) {
				t.Errorf("broken.go was changed: %q", got)
			}
		})
	}
}

func TestFormatCLIStatus(t *testing.T) {
	tmp := formatProject(t)
	var out, errb bytes.Buffer
	code := run(t.Context(), []string{"format", "-status", "-root", tmp, "-config", `{"prettier":{"disabled":true},"auto":true}`}, strings.NewReader(""), &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	for _, want := range []string{"on  gofmt           in process (go/format)", "off prettier        disabled by configuration", "off clang-format    no .clang-format or _clang-format above ./"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, out.String())
		}
	}
}

func TestFormatCLIErrors(t *testing.T) {
	tmp := formatProject(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{name: "no file", args: []string{"format"}, code: exitUsage, want: "no file given"},
		{name: "bad config", args: []string{"format", "-config", `{"prettier":{"disable":true}}`, "x.go"}, code: exitUsage, want: `unknown field "disable"`},
		{name: "custom formatter without extensions", args: []string{"format", "-root", tmp, "-config", `{"deno":{"command":["deno","$FILE"]}}`, "x.go"}, code: exitUsage, want: "custom formatter needs both"},
		{name: "status with a file", args: []string{"format", "-status", "x.go"}, code: exitUsage, want: "-status takes no file"},
		{name: "missing file", args: []string{"format", "-root", tmp, "nope.go"}, code: exitRefused, want: ""},
		{name: "outside the root", args: []string{"format", "-root", tmp, "../x.go"}, code: exitRefused, want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(t.Context(), tc.args, strings.NewReader(""), &out, &errb)
			if code != tc.code || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q (stdout %q)", code, errb.String(), tc.code, tc.want, out.String())
			}
		})
	}
}

// TestPatchApplyFormat: "patch apply --format" writes gofmt's output for the file that parses,
// the patch's bytes for the one that does not, and says so per file (text and JSON).
func TestPatchApplyFormat(t *testing.T) {
	const text = "*** Begin Patch\n*** Add File: b.go\n+package a\n+func B( ) {return}\n*** Add File: c.go\n+package a\n+func C() {\n*** Add File: notes.txt\n+as  written\n*** End Patch\n"
	for _, asJSON := range []bool{false, true} {
		tmp, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"patch", "apply", "--root", tmp, "--format"}
		if asJSON {
			args = append(args, "--json")
		}
		var out, errb bytes.Buffer
		if code := run(t.Context(), args, strings.NewReader(text), &out, &errb); code != exitOK {
			t.Fatalf("exit %d, stderr %q, stdout %q", code, errb.String(), out.String())
		}
		for name, want := range map[string]string{
			"b.go":      "package a\n\nfunc B() { return }\n",
			"c.go":      "package a\nfunc C() {\n",
			"notes.txt": "as  written\n",
		} {
			if got, _ := os.ReadFile(filepath.Join(tmp, name)); string(got) != want {
				t.Errorf("json=%v %s = %q, want %q", asJSON, name, got, want)
			}
		}
		wants := []string{"b.go: formatted by gofmt:\n--- a/b.go\n+++ b/b.go\n", "+func B() { return }\n", "c.go: gofmt: formatter failed", "does not parse"}
		if asJSON {
			wants = []string{`"path":"b.go","move_to":"","formatter":"gofmt","format_diff":"--- a/b.go`, `"path":"c.go","move_to":"","formatter":"gofmt","format_note":"formatter failed`, `"path":"notes.txt","move_to":""}`}
		}
		for _, w := range wants {
			if !strings.Contains(out.String(), w) {
				t.Errorf("json=%v: output lacks %q:\n%s", asJSON, w, out.String())
			}
		}
	}
}
