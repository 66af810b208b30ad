package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/loopguard"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/pathguard"
)

func TestToolsListed(t *testing.T) {
	b, _ := toolbox(t)
	var names []string
	for _, tl := range b.Tools() {
		names = append(names, tl.Name)
		var schema map[string]any
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: input schema %s is not an object schema (%v)", tl.Name, tl.InputSchema, err)
		}
	}
	want := "apply_patch,read,grep,glob,webfetch,edit,multi_edit"
	if tools.AstGrepAvailable() {
		want += ",ast_grep_search,ast_grep_replace"
	}
	if got := strings.Join(names, ","); got != want {
		t.Fatalf("tools = %s, want %s", got, want)
	}
	if b.Tool("nope") != nil || b.Tool("grep") == nil {
		t.Fatal("Tool lookup is wrong")
	}
}

// TestCalls calls every tool with valid and invalid input. A tool error must say what is
// wrong (want) and be a *tools.Error matching the sentinel; a success must contain want.
func TestCalls(t *testing.T) {
	// A regular file used as a directory: ENOTDIR on Unix, not-exist on Windows.
	fileAsDir := pathguard.ErrNotDirectory
	if runtime.GOOS == "windows" {
		fileAsDir = pathguard.ErrMissing
	}
	tests := []struct {
		name, tool, args string
		want             []string // substrings of the result or the error message
		wantErr          error    // nil: success
	}{
		{name: "read_whole_file", tool: "read", args: `{"file_path":"src/greet.go"}`,
			want: []string{"     1\tpackage main\n", "     5\t\treturn \"Hello, \" + name\n"}},
		{name: "read_offset_limit", tool: "read", args: `{"file_path":"src/greet.go","offset":3,"limit":2}`,
			want: []string{"     3\t// Greet", "     4\tfunc Greet", "has 6 lines; showing 3-4. Call read again with offset 5"}},
		{name: "read_absolute_inside", tool: "read", args: `{"file_path":"ROOT/README.md"}`, want: []string{"     1\t# Workspace"}},
		{name: "read_missing_arg", tool: "read", args: `{}`, wantErr: tools.ErrInvalidArgs,
			want: []string{"read: invalid arguments", "file_path", "Expected a JSON object with file_path (string, required), offset (integer), limit (integer)"}},
		{name: "read_wrong_type", tool: "read", args: `{"file_path":7}`, wantErr: tools.ErrInvalidArgs, want: []string{"file_path"}},
		{name: "read_unknown_field_ignored", tool: "read", args: `{"file_path":"README.md","bogus":1}`, want: []string{"     1\t# Workspace"}},
		{name: "read_misspelt_field", tool: "read", args: `{"filePath":"README.md"}`, wantErr: tools.ErrInvalidArgs, want: []string{`"filePath"`, "file_path"}},
		{name: "read_offset_zero", tool: "read", args: `{"file_path":"src/greet.go","offset":0}`, wantErr: tools.ErrInvalidArgs, want: []string{"offset"}},
		{name: "read_offset_past_end", tool: "read", args: `{"file_path":"src/greet.go","offset":50}`, wantErr: tools.ErrInvalidArgs,
			want: []string{"offset 50 is past the end", "has 6 lines"}},
		{name: "read_not_json", tool: "read", args: `{"file_path":`, wantErr: tools.ErrInvalidArgs, want: []string{"not valid JSON"}},
		{name: "read_array", tool: "read", args: `[1]`, wantErr: tools.ErrInvalidArgs, want: []string{"must be a JSON object"}},
		{name: "read_outside", tool: "read", args: `{"file_path":"../secret"}`, wantErr: pathguard.ErrOutside, want: []string{"outside"}},
		{name: "read_missing_file", tool: "read", args: `{"file_path":"src/nope.go"}`, wantErr: os.ErrNotExist, want: []string{"nope.go"}},
		{name: "read_directory", tool: "read", args: `{"file_path":"src"}`, wantErr: tools.ErrNotText, want: []string{"is a directory; use glob"}},

		{name: "grep_literal", tool: "grep", args: `{"pattern":"Greet"}`,
			want: []string{"Found 3 matching lines in 2 files\n", "\nsrc/greet.go:\n  3: // Greet returns", "  4: func Greet(name string) string {\n", "\nsrc/main.go:\n  6: \tfmt.Println(Greet(\"world\"))\n"}},
		{name: "grep_gitignored_skipped", tool: "grep", args: `{"pattern":"Greet","path":"."}`, want: []string{"in 2 files"}},
		{name: "grep_glob", tool: "grep", args: `{"pattern":"^func","glob":"main.go"}`, want: []string{"Found 1 matching lines in 1 files", "src/main.go:\n  5: func main() {"}},
		{name: "grep_ignore_case", tool: "grep", args: `{"pattern":"hello","ignore_case":true}`, want: []string{"src/greet.go:\n  5:"}},
		{name: "grep_limit", tool: "grep", args: `{"pattern":"Greet","limit":1}`, want: []string{"(showing the first 1;", "  3: // Greet"}},
		{name: "grep_single_file", tool: "grep", args: `{"pattern":"main","path":"src/main.go"}`, want: []string{"src/main.go:\n  1: package main\n  5: func main() {\n"}},
		{name: "grep_no_match", tool: "grep", args: `{"pattern":"zebra"}`, want: []string{"No matches found."}},
		{name: "grep_bad_regexp", tool: "grep", args: `{"pattern":"Greet("}`, wantErr: tools.ErrInvalidArgs,
			want: []string{`pattern "Greet(" is not a valid Go regular expression`, "Escape regex metacharacters"}},
		{name: "grep_missing_pattern", tool: "grep", args: `{"path":"src"}`, wantErr: tools.ErrInvalidArgs, want: []string{"pattern (string, required)"}},
		{name: "grep_missing_path", tool: "grep", args: `{"pattern":"x","path":"srcx"}`, wantErr: pathguard.ErrMissing, want: []string{"srcx"}},
		{name: "grep_path_through_file", tool: "grep", args: `{"pattern":"x","path":"README.md/sub"}`, wantErr: fileAsDir, want: []string{"README.md"}},
		{name: "grep_outside", tool: "grep", args: `{"pattern":"x","path":"/"}`, wantErr: pathguard.ErrOutside, want: []string{"outside"}},
		{name: "grep_bad_glob", tool: "grep", args: `{"pattern":"x","glob":"[a"}`, wantErr: tools.ErrInvalidArgs, want: []string{`glob "[a" is not a valid pattern`}},

		{name: "glob_all_go", tool: "glob", args: `{"pattern":"**/*.go"}`, want: []string{"Found 2 files\nsrc/greet.go\nsrc/main.go\n"}},
		{name: "glob_top", tool: "glob", args: `{"pattern":"*.md"}`, want: []string{"Found 1 files\nREADME.md\n"}},
		{name: "glob_in_path", tool: "glob", args: `{"pattern":"*.go","path":"src"}`, want: []string{"src/greet.go\nsrc/main.go\n"}},
		{name: "glob_hidden_included", tool: "glob", args: `{"pattern":".git*"}`, want: []string{".gitignore"}},
		{name: "glob_none", tool: "glob", args: `{"pattern":"**/*.rs"}`, want: []string{"No files found."}},
		{name: "glob_limit", tool: "glob", args: `{"pattern":"**","limit":2}`, want: []string{"Found 4 files (showing the first 2;"}},
		{name: "glob_absolute_pattern", tool: "glob", args: `{"pattern":"/etc/*"}`, wantErr: tools.ErrInvalidArgs, want: []string{"put the directory to search in path"}},
		{name: "glob_bad_pattern", tool: "glob", args: `{"pattern":"src/[a"}`, wantErr: tools.ErrInvalidArgs, want: []string{"not a valid relative glob"}},
		{name: "glob_missing_path", tool: "glob", args: `{"pattern":"*","path":"nowhere"}`, wantErr: pathguard.ErrMissing, want: []string{"nowhere"}},
		{name: "glob_file_path", tool: "glob", args: `{"pattern":"*","path":"README.md"}`, wantErr: tools.ErrInvalidArgs, want: []string{"is a file"}},

		{name: "patch_update", tool: "apply_patch", args: patchArgs("*** Begin Patch\n*** Update File: src/greet.go\n@@ func Greet(name string) string {\n-\treturn \"Hello, \" + name\n+\treturn \"Hi, \" + name\n }\n*** End Patch\n"),
			want: []string{"Success. Updated the following files:\nM src/greet.go\n"}},
		{name: "patch_add", tool: "apply_patch", args: patchArgs("*** Begin Patch\n*** Add File: docs/new.md\n+# New\n*** End Patch"),
			want: []string{"A docs/new.md"}},
		{name: "patch_stale_rescued", tool: "apply_patch", args: patchArgs("*** Begin Patch\n*** Update File: src/main.go\n import \"fmt\"\n \n func main() {\n-\tfmt.Println(Greet(\"world\"))\n+\tfmt.Println(Greet(\"gopher\"))\n }\n*** End Patch"),
			want: []string{"M src/main.go"}},
		{name: "patch_not_found", tool: "apply_patch", args: patchArgs("*** Begin Patch\n*** Update File: src/greet.go\n-no such line\n+x\n*** End Patch"),
			wantErr: patch.ErrNotFound, want: []string{"src/greet.go"}},
		{name: "patch_outside", tool: "apply_patch", args: patchArgs("*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch"),
			wantErr: patch.ErrBlocked, want: []string{"escape.txt"}},
		{name: "patch_malformed", tool: "apply_patch", args: patchArgs("hello"), wantErr: patch.ErrInvalid, want: []string{"Begin Patch"}},
		{name: "patch_exists", tool: "apply_patch", args: patchArgs("*** Begin Patch\n*** Add File: README.md\n+x\n*** End Patch"), wantErr: patch.ErrExists, want: []string{"README.md"}},
		{name: "patch_empty_text", tool: "apply_patch", args: `{"patchText":""}`, wantErr: tools.ErrInvalidArgs, want: []string{"patchText is empty"}},
		{name: "patch_wrong_name", tool: "apply_patch", args: `{"patch":"x"}`, wantErr: tools.ErrInvalidArgs, want: []string{"patchText (string, required)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, dir := toolbox(t)
			args := strings.ReplaceAll(tc.args, "ROOT", filepath.ToSlash(dir))
			out, err := b.Tool(tc.tool).Call(context.Background(), json.RawMessage(args))
			got := out
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("error %v, want success", err)
				}
			} else {
				var te *tools.Error
				if !errors.As(err, &te) || !errors.Is(err, tc.wantErr) {
					t.Fatalf("error %#v (%v), want a *tools.Error matching %v", err, err, tc.wantErr)
				}
				if te.Tool != tc.tool || out != "" {
					t.Fatalf("tool error for %q with output %q", te.Tool, out)
				}
				got = err.Error()
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("result lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

func patchArgs(text string) string {
	b, _ := json.Marshal(map[string]string{"patchText": text})
	return string(b)
}

// TestPatchWritesNothingOnFailure: a patch with one good and one bad section leaves the
// tree as it was.
func TestPatchWritesNothingOnFailure(t *testing.T) {
	b, dir := toolbox(t)
	before, _ := os.ReadFile(filepath.Join(dir, "src/greet.go"))
	_, err := b.Tool("apply_patch").Call(context.Background(), json.RawMessage(patchArgs(
		"*** Begin Patch\n*** Update File: src/greet.go\n-\treturn \"Hello, \" + name\n+\treturn name\n*** Update File: src/main.go\n-missing\n+x\n*** End Patch")))
	if !errors.Is(err, patch.ErrNotFound) {
		t.Fatalf("err = %v, want not found", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "src/greet.go"))
	if string(before) != string(after) {
		t.Fatal("a failed patch changed src/greet.go")
	}
}

// TestLoop: the same grep six times with the same result gets the notice from the third
// call and is refused on the sixth; another session is not affected.
func TestLoop(t *testing.T) {
	b, _ := toolbox(t)
	g := b.Tool("grep")
	args := json.RawMessage(`{"pattern":"Greet"}`)
	for i := 1; i <= 6; i++ {
		out, err := g.Invoke(context.Background(), tools.Invocation{Session: "s1", Args: args})
		switch {
		case i < 3:
			if err != nil || strings.Contains(out, loopguard.DefaultLoopMarker) {
				t.Fatalf("call %d: %v, notice present: %v", i, err, strings.Contains(out, loopguard.DefaultLoopMarker))
			}
		case i < 6:
			if err != nil || !strings.Contains(out, loopguard.DefaultLoopMarker) || !strings.Contains(out, "Found 3 matching lines") {
				t.Fatalf("call %d: %v, want the result with a notice, got:\n%s", i, err, out)
			}
		default:
			if !errors.Is(err, loopguard.ErrRefused) || !tools.IsToolError(err) {
				t.Fatalf("call 6: err = %v, want a refusal as a tool error", err)
			}
		}
	}
	if _, err := g.Invoke(context.Background(), tools.Invocation{Session: "s2", Args: args}); err != nil {
		t.Fatalf("another session was refused: %v", err)
	}
}

// TestRepeatedFailureIsALoop: the same failing call counts as a repeat too, and the notice
// rides on the error message.
func TestRepeatedFailureIsALoop(t *testing.T) {
	b, _ := toolbox(t)
	var last error
	for range 3 {
		_, last = b.Tool("read").Call(context.Background(), json.RawMessage(`{"file_path":"nope"}`))
	}
	if !tools.IsToolError(last) || !strings.Contains(last.Error(), loopguard.DefaultLoopMarker) {
		t.Fatalf("third identical failure: %v", last)
	}
}

func TestCancelledIsHostError(t *testing.T) {
	b, _ := toolbox(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := b.Tool("grep").Call(ctx, json.RawMessage(`{"pattern":"x"}`))
	if !errors.Is(err, context.Canceled) || tools.IsToolError(err) {
		t.Fatalf("err = %v, want a host error wrapping context.Canceled", err)
	}
}

func TestNewErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for _, tc := range []struct {
		name string
		root string
		opts []tools.Option
		want string
	}{
		{name: "missing_root", root: filepath.Join(dir, "nope"), want: "root"},
		{name: "file_root", root: file, want: "not a directory"},
		{name: "missing_worktree", root: dir, opts: []tools.Option{tools.WithWorktrees(filepath.Join(dir, "x"))}, want: "worktree"},
		{name: "bad_loop_option", root: dir, opts: []tools.Option{tools.WithLoopGuard(loopguard.WithWarnAt(0))}, want: "invalid option"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tools.New(tc.root, tc.opts...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				b.Close()
				t.Fatalf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// TestWorktree: read and patch reach a worktree given by absolute path.
func TestWorktree(t *testing.T) {
	root, wt := workspace(t), t.TempDir()
	os.WriteFile(filepath.Join(wt, "w.txt"), []byte("one\n"), 0o644)
	b, err := tools.New(root, tools.WithWorktrees(wt))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	out, err := b.Tool("read").Call(context.Background(), json.RawMessage(`{"file_path":`+quote(filepath.Join(wt, "w.txt"))+`}`))
	if err != nil || !strings.Contains(out, "1\tone") {
		t.Fatalf("read in worktree: %q, %v", out, err)
	}
	_, err = b.Tool("apply_patch").Call(context.Background(), json.RawMessage(patchArgs("*** Begin Patch\n*** Update File: "+filepath.Join(wt, "w.txt")+"\n-one\n+two\n*** End Patch")))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(wt, "w.txt")); string(got) != "two\n" {
		t.Fatalf("worktree file = %q", got)
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestDescriptionsGolden pins each tool's description and schema (prose: reviewed, not
// promised).
func TestDescriptionsGolden(t *testing.T) {
	b, _ := toolbox(t)
	for _, tl := range b.Tools() {
		var schema bytes
		schema.indent(tl.InputSchema)
		got := tl.Description + "\n---- input schema ----\n" + string(schema)
		checkGolden(t, filepath.Join("testdata", tl.Name+".golden"), got)
	}
}

// TestDescriptionExamples runs every JSON example of every description against the
// sample workspace: each must succeed.
func TestDescriptionExamples(t *testing.T) {
	block := regexp.MustCompile("(?s)```json\n(.*?)\n```")
	b0, _ := toolbox(t)
	for _, tl := range b0.Tools() {
		if tl.Annotations.OpenWorld {
			continue // its examples need a web: TestWebfetchDescriptionExamples serves one
		}
		ms := block.FindAllStringSubmatch(tl.Description, -1)
		if len(ms) == 0 {
			t.Errorf("%s: the description has no JSON example", tl.Name)
		}
		for _, m := range ms {
			b, _ := toolbox(t)
			if out, err := b.Tool(tl.Name).Call(context.Background(), json.RawMessage(m[1])); err != nil {
				t.Errorf("%s example %s: %v", tl.Name, m[1], err)
			} else if strings.Contains(out, "No matches") || strings.Contains(out, "No files") {
				t.Errorf("%s example %s finds nothing in the sample workspace:\n%s", tl.Name, m[1], out)
			}
		}
	}
}

func TestReadEdges(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	tests := []struct {
		name, content, args string
		want                string
		wantErr             error
	}{
		{name: "empty_file", content: "", args: `{"file_path":"f"}`, want: "(f is empty)"},
		{name: "no_final_newline", content: "a\nb", args: `{"file_path":"f"}`, want: "     1\ta\n     2\tb\n"},
		{name: "crlf", content: "a\r\nb\r\n", args: `{"file_path":"f"}`, want: "     1\ta\n     2\tb\n"},
		{name: "long_line_cut", content: long + "\nnext\n", args: `{"file_path":"f"}`, want: strings.Repeat("x", 2000) + " … [line cut at 2000 characters]\n     2\tnext\n"},
		{name: "limit_exactly_all", content: "a\nb\n", args: `{"file_path":"f","limit":2}`, want: "     2\tb\n"},
		{name: "limit_one_short", content: "a\nb\n", args: `{"file_path":"f","limit":1}`, want: "(f has 2 lines; showing 1-1. Call read again with offset 2 to continue.)"},
		{name: "last_line_offset", content: "a\nb\n", args: `{"file_path":"f","offset":2}`, want: "     2\tb\n"},
		{name: "binary", content: "a\x00b", args: `{"file_path":"f"}`, wantErr: tools.ErrNotText},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "f"), []byte(tc.content), 0o644)
			b, err := tools.New(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			out, err := b.Tool("read").Call(context.Background(), json.RawMessage(tc.args))
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !tools.IsToolError(err) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(out, tc.want) {
				t.Fatalf("err %v, output:\n%.300q\nwant %.300q", err, out, tc.want)
			}
			if strings.Contains(tc.name, "exactly") && strings.Contains(out, "Call read again") {
				t.Fatalf("a complete read offers to continue:\n%s", out)
			}
		})
	}
}

// TestSymlinkEscape: a symbolic link inside the workspace that points outside is refused
// by read and skipped by grep and glob.
func TestSymlinkEscape(t *testing.T) {
	testenv.Symlinks(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("password\n"), 0o644)
	b, dir := toolbox(t)
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Skipf("cannot create symlinks here: %v", err)
	}
	os.Symlink(outside, filepath.Join(dir, "linkdir"))
	ctx := context.Background()
	if _, err := b.Tool("read").Call(ctx, json.RawMessage(`{"file_path":"link.txt"}`)); !errors.Is(err, pathguard.ErrOutside) {
		t.Fatalf("read through an escaping link: %v", err)
	}
	if _, err := b.Tool("grep").Call(ctx, json.RawMessage(`{"pattern":"x","path":"linkdir"}`)); !errors.Is(err, pathguard.ErrOutside) {
		t.Fatalf("grep in an escaping directory link: %v", err)
	}
	out, err := b.Tool("grep").Call(ctx, json.RawMessage(`{"pattern":"password"}`))
	if err != nil || !strings.Contains(out, "No matches") {
		t.Fatalf("grep followed a link out: %q %v", out, err)
	}
	out, err = b.Tool("glob").Call(ctx, json.RawMessage(`{"pattern":"**/*.txt"}`))
	if err != nil || strings.Contains(out, "link") || strings.Contains(out, "secret") {
		t.Fatalf("glob listed a link: %q %v", out, err)
	}
}

// TestGrepFileSizeLimit: a file of exactly the limit is searched, one byte more is skipped
// and counted, in a directory search and for a single file.
func TestGrepFileSizeLimit(t *testing.T) {
	const limit = 100
	for _, tc := range []struct {
		name     string
		size     int
		searched bool
	}{
		{name: "limit_minus_one", size: limit - 1, searched: true},
		{name: "at_limit", size: limit, searched: true},
		{name: "limit_plus_one", size: limit + 1, searched: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "f.txt"), []byte("needle\n"+strings.Repeat("x", tc.size-7)), 0o644)
			b, err := tools.New(dir, tools.WithMaxSearchFileSize(limit))
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			for _, args := range []string{`{"pattern":"needle"}`, `{"pattern":"needle","path":"f.txt"}`} {
				out, err := b.Tool("grep").Call(context.Background(), json.RawMessage(args))
				if err != nil {
					t.Fatal(err)
				}
				found := strings.Contains(out, "f.txt:\n  1: needle")
				note := strings.Contains(out, "(1 files larger than 100 bytes were not searched.)")
				if found != tc.searched || note == tc.searched {
					t.Fatalf("%s: searched=%v note=%v, want searched=%v:\n%s", args, found, note, tc.searched, out)
				}
			}
		})
	}
}

// TestGlobBelowHonoursGitignoreAbove: a glob whose fixed prefix starts the walk in a
// subdirectory still applies the .gitignore files above it.
func TestGlobBelowHonoursGitignoreAbove(t *testing.T) {
	b, dir := toolbox(t)
	os.WriteFile(filepath.Join(dir, "src", "trace.log"), []byte("x\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "src", "build"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "build", "x.go"), []byte("x\n"), 0o644)
	for _, args := range []string{`{"pattern":"src/**"}`, `{"pattern":"**","path":"src"}`} {
		out, err := b.Tool("glob").Call(context.Background(), json.RawMessage(args))
		if err != nil || strings.Contains(out, "trace.log") || strings.Contains(out, "build") || !strings.Contains(out, "src/greet.go") {
			t.Fatalf("%s: %v\n%s", args, err, out)
		}
	}
}

// TestUnknownArgumentsIgnored: hosts add arguments of their own to every tool's schema and
// send them (Gemini CLI's wait_for_previous, which models set on dependent calls such as
// apply_patch then read). A tool ignores arguments it does not know, and its schema does
// not forbid them.
func TestUnknownArgumentsIgnored(t *testing.T) {
	b, dir := toolbox(t)
	for _, tl := range b.Tools() {
		var schema map[string]any
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		if ap, ok := schema["additionalProperties"]; ok && ap == false {
			t.Errorf("%s: the schema forbids additional properties, so a host that adds its own is refused", tl.Name)
		}
	}
	calls := []struct{ tool, args, want string }{
		{"apply_patch", `{"patchText":"*** Begin Patch\n*** Update File: src/greet.go\n@@ func Greet(name string) string {\n-\treturn \"Hello, \" + name\n+\treturn \"Hi, \" + name\n }\n*** End Patch\n","wait_for_previous":true}`, "M src/greet.go"},
		{"read", `{"file_path":"src/greet.go","wait_for_previous":true}`, `return "Hi, " + name`},
		{"grep", `{"pattern":"Hi, ","wait_for_previous":false,"x-host":{"trace":1}}`, "src/greet.go:"},
		{"glob", `{"pattern":"**/*.go","wait_for_previous":true}`, "src/greet.go"},
	}
	for _, c := range calls {
		out, err := b.Tool(c.tool).Call(context.Background(), json.RawMessage(c.args))
		if err != nil || !strings.Contains(out, c.want) {
			t.Fatalf("%s %s: %q, %v; want a result containing %q", c.tool, c.args, out, err, c.want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "src/greet.go")); !strings.Contains(string(data), `"Hi, "`) {
		t.Fatalf("the patch with wait_for_previous was not written:\n%s", data)
	}
}

// TestRootReplaced: the workspace root is resolved the same way for every tool on every
// call. When the directory at the root's path is replaced while the toolbox is open (a
// fresh clone, a checkout swapped in), every tool works on the new directory, and the old
// one is left alone.
func TestRootReplaced(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "ws")
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "a.go"), "package a\n\nvar X = \"old\"\n")
	b, err := tools.New(root)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if out, err := b.Tool("read").Call(context.Background(), json.RawMessage(`{"file_path":"a.go"}`)); err != nil || !strings.Contains(out, `"old"`) {
		t.Fatalf("read before the swap: %q, %v", out, err)
	}
	if err := os.Rename(root, root+".old"); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(root, "a.go"), "package a\n\nvar X = \"new\"\n")
	write(filepath.Join(root, "b.go"), "package a\n")
	calls := []struct{ tool, args, want string }{
		{"apply_patch", patchArgs("*** Begin Patch\n*** Update File: a.go\n-var X = \"new\"\n+var X = \"newer\"\n*** End Patch"), "M a.go"},
		{"read", `{"file_path":"a.go"}`, `"newer"`},
		{"grep", `{"pattern":"newer"}`, "a.go:"},
		{"glob", `{"pattern":"*.go"}`, "b.go"},
	}
	if tools.AstGrepAvailable() {
		calls = append(calls, struct{ tool, args, want string }{"ast_grep_replace", `{"pattern":"var X = $V","rewrite":"var Y = $V","lang":"go","dryRun":false}`, "[APPLIED] 1 replacement in 1 file"})
	}
	for _, c := range calls {
		out, err := b.Tool(c.tool).Call(context.Background(), json.RawMessage(c.args))
		if err != nil || !strings.Contains(out, c.want) {
			t.Errorf("%s after the swap: %q, %v; want %q", c.tool, out, err, c.want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(root+".old", "a.go")); !strings.Contains(string(data), `var X = "old"`) {
		t.Errorf("the replaced directory was written:\n%s", data)
	}
	want := `var X = "newer"`
	if tools.AstGrepAvailable() {
		want = `var Y = "newer"`
	}
	if data, _ := os.ReadFile(filepath.Join(root, "a.go")); !strings.Contains(string(data), want) {
		t.Errorf("the new directory's a.go lacks %s:\n%s", want, data)
	}
}

// TestInvocationRoots: a call limited to the client's roots touches only what lies both in
// them and in the Toolbox's root (the ceiling), and resolves relative paths against the
// first root left.
func TestInvocationRoots(t *testing.T) {
	b, dir := toolbox(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "x.txt"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "escape")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	read := func(roots []string, path string) (string, error) {
		args, _ := json.Marshal(map[string]string{"file_path": path})
		return b.Tool("read").Invoke(context.Background(), tools.Invocation{Session: t.Name(), Args: args, Roots: roots})
	}
	tests := []struct {
		name    string
		roots   []string
		path    string
		want    string
		wantErr error
	}{
		{name: "root_inside_ceiling_is_the_base", roots: []string{filepath.Join(dir, "src")}, path: "greet.go", want: "package main"},
		{name: "outside_the_client_root_refused", roots: []string{filepath.Join(dir, "src")}, path: "../README.md", wantErr: pathguard.ErrOutside},
		{name: "root_above_ceiling_yields_ceiling", roots: []string{filepath.Dir(dir)}, path: "README.md", want: "# Workspace"},
		{name: "outside_ceiling_left_out", roots: []string{outside, filepath.Join(dir, "src")}, path: "main.go", want: "func main"},
		{name: "no_root_left", roots: []string{outside}, path: "README.md", wantErr: tools.ErrNoRoot},
		{name: "missing_root_left_out", roots: []string{filepath.Join(dir, "nope"), dir}, path: "README.md", want: "# Workspace"},
		{name: "link_to_outside_left_out", roots: []string{filepath.Join(dir, "escape")}, path: "x.txt", wantErr: tools.ErrNoRoot},
		{name: "relative_root_left_out", roots: []string{"src"}, path: "README.md", wantErr: tools.ErrNoRoot},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := read(tc.roots, tc.path)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("got %q, %v; want %v", out, err, tc.wantErr)
				}
				if errors.Is(tc.wantErr, tools.ErrNoRoot) && tools.IsToolError(err) {
					t.Fatalf("ErrNoRoot came back as a tool error: %v", err)
				}
				return
			}
			if err != nil || !strings.Contains(out, tc.want) {
				t.Fatalf("got %q, %v; want %q", out, err, tc.want)
			}
		})
	}
}

// TestPatchLargeFiles: patch's size limit reaches the model as a tool error naming the
// limit (not a host fault): an Add File over it is refused, an Update of a file over it is
// refused, and a Delete of that file works.
func TestPatchLargeFiles(t *testing.T) {
	b, dir := toolbox(t)
	huge := filepath.Join(dir, "huge.log")
	if err := os.WriteFile(huge, []byte("first line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, patch.DefaultMaxFileSize+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	limit := fmt.Sprint(patch.DefaultMaxFileSize)
	call := func(text string) (string, error) {
		return b.Tool("apply_patch").Call(context.Background(), json.RawMessage(patchArgs(text)))
	}
	_, err := call("*** Begin Patch\n*** Update File: huge.log\n-first line\n+line one\n*** End Patch\n")
	if !tools.IsToolError(err) || !errors.Is(err, patch.ErrTooLarge) || !strings.Contains(err.Error(), limit) {
		t.Fatalf("update of a file over the limit: %v; want a tool error matching patch.ErrTooLarge naming %s", err, limit)
	}
	if !testing.Short() {
		line := "+" + strings.Repeat("a", 1<<20-1) + "\n"
		_, err = call("*** Begin Patch\n*** Add File: big.txt\n" + strings.Repeat(line, int(patch.DefaultMaxFileSize>>20)+1) + "*** End Patch\n")
		if !tools.IsToolError(err) || !errors.Is(err, patch.ErrTooLarge) {
			t.Fatalf("Add File over the limit: %v; want a tool error matching patch.ErrTooLarge", err)
		}
		if _, serr := os.Stat(filepath.Join(dir, "big.txt")); !errors.Is(serr, os.ErrNotExist) {
			t.Fatalf("the refused Add File left big.txt: %v", serr)
		}
	}
	if out, err := call("*** Begin Patch\n*** Delete File: huge.log\n*** End Patch\n"); err != nil || !strings.Contains(out, "D huge.log") {
		t.Fatalf("delete of a file over the limit: %q, %v", out, err)
	}
}
