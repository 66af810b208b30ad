package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

const greetGo = "package main\n\nfunc greet() string {\n\treturn \"hello\"\n}\n"

func TestPatchCLI(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string // the workspace before
		args     []string          // after "patch"; --root is added
		noRoot   bool
		stdin    string
		wantCode int
		wantErr  string            // substring of stderr ("" = empty)
		want     map[string]string // files that must hold exactly this afterwards (nil = unchanged)
		// parent holds files next to the workspace (its parent directory is "$PARENT" in args);
		// wantParent, what they must hold afterwards.
		parent, wantParent map[string]string
	}{
		{
			name: "apply_exact_summary", files: map[string]string{"src/greet.go": greetGo},
			args:     []string{"apply"},
			stdin:    "*** Begin Patch\n*** Update File: src/greet.go\n@@ func greet() string {\n-\treturn \"hello\"\n+\treturn \"hello, world\"\n*** Add File: docs/new.md\n+# New\n*** End Patch\n",
			wantCode: exitOK,
			want:     map[string]string{"src/greet.go": strings.Replace(greetGo, `"hello"`, `"hello, world"`, 1), "docs/new.md": "# New\n"},
		},
		{
			name: "apply_unified_diff_refused", files: map[string]string{"src/greet.go": greetGo},
			args:     []string{"apply", "--json"},
			stdin:    "diff --git a/src/greet.go b/src/greet.go\n--- a/src/greet.go\n+++ b/src/greet.go\n@@ -3,3 +3,3 @@\n func greet() string {\n-\treturn \"hello\"\n+\treturn \"hi\"\n }\n",
			wantCode: exitRefused,
		},
		{
			name: "apply_json_already_applied", files: map[string]string{"src/greet.go": strings.Replace(greetGo, `"hello"`, `"hi there"`, 1)},
			args:     []string{"apply", "--json"},
			stdin:    "*** Begin Patch\n*** Update File: src/greet.go\n@@\n func greet() string {\n-\treturn \"hello\"\n+\treturn \"hi there\"\n }\n*** End Patch\n",
			wantCode: exitRefused,
		},
		{
			name: "apply_json_stale_rescued", files: map[string]string{"src/greet.go": greetGo},
			args:     []string{"apply", "--json"},
			stdin:    "*** Begin Patch\n*** Update File: src/greet.go\n@@\n package main\n func greet() string {\n-\treturn \"hello\"\n+\treturn \"hi there\"\n }\n*** End Patch\n",
			wantCode: exitOK,
			want:     map[string]string{"src/greet.go": strings.Replace(greetGo, `"hello"`, `"hi there"`, 1)},
		},
		{
			name: "apply_json_move", files: map[string]string{"a.txt": "one\ntwo\n"},
			args:     []string{"apply", "--json"},
			stdin:    "*** Begin Patch\n*** Update File: a.txt\n*** Move to: sub/b.txt\n@@\n-two\n+TWO\n*** End Patch\n",
			wantCode: exitOK,
			want:     map[string]string{"sub/b.txt": "one\nTWO\n"},
		},
		{
			name: "apply_json_ambiguous", files: map[string]string{"cfg.yaml": "a:\n  enabled: false\nb:\n    enabled: false\n"},
			args:     []string{"apply", "--json"},
			stdin:    "*** Begin Patch\n*** Update File: cfg.yaml\n@@\n-enabled: false\n+enabled: true\n*** End Patch\n",
			wantCode: exitRefused,
		},
		{
			name: "apply_json_blocked", files: map[string]string{"a.txt": "x\n"},
			args:     []string{"apply", "--json"},
			stdin:    "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** Add File: ../escape.txt\n+boom\n*** End Patch\n",
			wantCode: exitRefused,
		},
		{
			name: "apply_json_invalid", files: map[string]string{},
			args:     []string{"apply", "--json"},
			stdin:    "*** Begin Patch\n*** Frobnicate File: a.txt\n*** End Patch\n",
			wantCode: exitRefused,
		},
		{
			name: "apply_json_exists", files: map[string]string{"a.txt": "old\n"},
			args:     []string{"apply", "--json"},
			stdin:    "*** Begin Patch\n*** Add File: a.txt\n+new\n*** End Patch\n",
			wantCode: exitRefused,
		},
		{
			name: "apply_allow_overwrite", files: map[string]string{"a.txt": "old\n"},
			args:     []string{"apply", "--allow-overwrite"},
			stdin:    "*** Begin Patch\n*** Add File: a.txt\n+new\n*** End Patch\n",
			wantCode: exitOK,
			want:     map[string]string{"a.txt": "new\n"},
		},
		{
			name: "apply_not_found_text", files: map[string]string{"src/greet.go": greetGo},
			args:     []string{"apply"},
			stdin:    "*** Begin Patch\n*** Update File: src/greet.go\n@@\n func greet() string {\n-\treturn \"bye\"\n+\treturn \"ciao\"\n*** End Patch\n",
			wantCode: exitRefused,
		},
		{
			name: "apply_all_or_nothing", files: map[string]string{"a.txt": "a\n"},
			args:     []string{"apply", "--json"},
			stdin:    "*** Begin Patch\n*** Add File: created.txt\n+hello\n*** Update File: missing.txt\n@@\n-old\n+new\n*** End Patch\n",
			wantCode: exitRefused,
		},
		{
			name: "apply_codex_compat_partial", files: map[string]string{"a.txt": "a\n"},
			args:     []string{"apply", "--codex-compat"},
			stdin:    "*** Begin Patch\n*** Add File: created.txt\n+hello\n*** Update File: missing.txt\n@@\n-old\n+new\n*** End Patch\n",
			wantCode: exitRefused,
			want:     map[string]string{"a.txt": "a\n", "created.txt": "hello\n"},
		},
		{
			// Sections 1 and 2 are written before section 3 fails: "changes" lists them, and
			// the message says not to send them again.
			name: "apply_json_codex_compat_partial", files: map[string]string{"a.txt": "a\n"},
			args:     []string{"apply", "--codex-compat", "--json"},
			stdin:    "*** Begin Patch\n*** Add File: created.txt\n+hello\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: a.txt\n@@\n-missing\n+new\n*** End Patch\n",
			wantCode: exitRefused,
			want:     map[string]string{"a.txt": "A\n", "created.txt": "hello\n"},
		},
		{
			name: "apply_dry_run", files: map[string]string{"a.txt": "one\n"},
			args:     []string{"apply", "--dry-run", "--json"},
			stdin:    "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Delete File: a.txt\n*** Add File: b.txt\n+b\n*** End Patch\n",
			wantCode: exitOK,
		},
		{
			name: "rewrite_stale", files: map[string]string{"src/greet.go": greetGo},
			args:     []string{"rewrite"},
			stdin:    "*** Begin Patch\n*** Update File: src/greet.go\n@@\n package main\n func greet() string {\n-\treturn \"hello\"\n+\treturn \"hi there\"\n }\n*** End Patch\n",
			wantCode: exitOK,
		},
		{
			name: "rewrite_canonical_unchanged", files: map[string]string{"a.txt": "one\ntwo\n"},
			args:     []string{"rewrite"},
			stdin:    "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n",
			wantCode: exitOK,
		},
		{
			name: "apply_worktree_sibling", files: map[string]string{"a.txt": "a\n"},
			args:       []string{"apply", "--worktree", "$PARENT"},
			stdin:      "*** Begin Patch\n*** Update File: ../shared.txt\n@@\n-s\n+S\n*** End Patch\n",
			parent:     map[string]string{"shared.txt": "s\n"},
			wantCode:   exitOK,
			wantParent: map[string]string{"shared.txt": "S\n"},
		},
		{
			name: "apply_sibling_without_worktree_blocked", files: map[string]string{"a.txt": "a\n"},
			args:       []string{"apply"},
			stdin:      "*** Begin Patch\n*** Update File: ../shared.txt\n@@\n-s\n+S\n*** End Patch\n",
			parent:     map[string]string{"shared.txt": "s\n"},
			wantCode:   exitRefused,
			wantParent: map[string]string{"shared.txt": "s\n"},
		},
		{
			name: "usage_missing_root", noRoot: true, args: []string{"apply"},
			stdin: "", wantCode: exitUsage, wantErr: "--root is required",
		},
		{
			name: "usage_bad_flag", args: []string{"apply", "--frobnicate"},
			stdin: "", wantCode: exitUsage, wantErr: "flag provided but not defined",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parentDir := t.TempDir()
			root := filepath.Join(parentDir, "ws")
			if err := os.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			for rel, data := range tc.parent {
				if err := os.WriteFile(filepath.Join(parentDir, rel), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for rel, data := range tc.files {
				p := filepath.Join(root, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := []string{"patch"}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "$PARENT", parentDir))
			}
			if !tc.noRoot {
				args = append(args, "--root", root)
			}
			var out, errb bytes.Buffer
			code := run(t.Context(), args, strings.NewReader(tc.stdin), &out, &errb)
			if code != tc.wantCode {
				t.Errorf("exit code = %d, want %d (stdout %q, stderr %q)", code, tc.wantCode, out.String(), errb.String())
			}
			if tc.wantErr == "" && errb.Len() != 0 {
				t.Errorf("stderr = %q, want empty", errb.String())
			}
			if !strings.Contains(errb.String(), tc.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", errb.String(), tc.wantErr)
			}
			if tc.wantCode != exitUsage {
				checkGolden(t, filepath.Join("testdata", "patch", tc.name+".golden"), strings.ReplaceAll(out.String(), root, "$ROOT"))
			}
			for rel, data := range tc.wantParent {
				got, err := os.ReadFile(filepath.Join(parentDir, rel))
				if err != nil || string(got) != data {
					t.Errorf("../%s = %q (%v), want %q", rel, got, err, data)
				}
			}
			wantFiles := tc.want
			if wantFiles == nil {
				wantFiles = tc.files
			}
			for rel, data := range wantFiles {
				got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
				if err != nil || string(got) != data {
					t.Errorf("%s = %q (%v), want %q", rel, got, err, data)
				}
			}
			if tc.want == nil {
				count := 0
				_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
					if err == nil && !d.IsDir() {
						count++
					}
					return err
				})
				if count != len(tc.files) {
					t.Errorf("workspace holds %d files, want %d (nothing created)", count, len(tc.files))
				}
			}
		})
	}
}

// Input over the limit is refused with the limit, never cut and parsed.
func TestPatchInputLimit(t *testing.T) {
	var out, errb bytes.Buffer
	std := stdio{in: strings.NewReader(strings.Repeat("x", 2<<20+1)), out: &out, err: &errb}
	if _, code := readLimited(std, "patch apply", "the patch", 2<<20); code != exitUsage {
		t.Fatalf("code = %d, want %d", code, exitUsage)
	}
	if want := "harnesskit patch apply: the patch on stdin: input exceeds 2 MiB\n"; errb.String() != want {
		t.Errorf("stderr = %q, want %q", errb.String(), want)
	}
	errb.Reset()
	std.in = strings.NewReader(strings.Repeat("x", 2<<20))
	if b, code := readLimited(std, "patch apply", "the patch", 2<<20); code != exitOK || len(b) != 2<<20 {
		t.Errorf("at the limit: %d bytes, code %d, stderr %q", len(b), code, errb.String())
	}
}

// TestPatchLargeFiles: a file over the size limit (64 MiB) cannot be added (refused before
// anything is written, with the limit in the message), cannot be updated (a tool error naming
// the limit: exit 1, kind too_large, not an internal error), and can be deleted.
func TestPatchLargeFiles(t *testing.T) {
	root := t.TempDir()
	big := filepath.Join(root, "big.bin")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file: its size is what counts, and the test writes nothing to disk.
	if err := f.Truncate(patch.DefaultMaxFileSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	limit := "the limit is 67108864 bytes"
	apply := func(stdin string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(t.Context(), append([]string{"patch", "apply", "--root", root}, args...), strings.NewReader(stdin), &out, &errb)
		return code, out.String(), errb.String()
	}

	code, out, errs := apply("*** Begin Patch\n*** Update File: big.bin\n@@\n-x\n+y\n*** End Patch\n", "--json")
	var res patchApplyJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	if code != exitRefused || res.Error == nil || res.Error.Kind != "too_large" || !strings.Contains(res.Error.Message, limit) || errs != "" {
		t.Fatalf("update of an over-limit file: code %d, %+v, stderr %q; want exit 1, kind too_large naming the limit", code, res.Error, errs)
	}

	add := "*** Begin Patch\n*** Add File: huge.txt\n+" + strings.Repeat("x", int(patch.DefaultMaxFileSize)) + "\n*** End Patch\n"
	code, out, errs = apply(add)
	if code != exitRefused || !strings.Contains(out, "File too large to patch: huge.txt") || !strings.Contains(out, limit) || errs != "" {
		t.Fatalf("add of an over-limit file: code %d, stdout %.200q, stderr %q; want exit 1 naming the limit", code, out, errs)
	}
	if _, err := os.Lstat(filepath.Join(root, "huge.txt")); !os.IsNotExist(err) {
		t.Errorf("huge.txt was written: %v", err)
	}

	code, out, errs = apply("*** Begin Patch\n*** Delete File: big.bin\n*** End Patch\n")
	if code != exitOK || out != "Success. Updated the following files:\nD big.bin\n" {
		t.Fatalf("delete of an over-limit file: code %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, err := os.Lstat(big); !os.IsNotExist(err) {
		t.Errorf("big.bin still there: %v", err)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("left in the root: %v", ents)
	}
}

// TestPatchPlantedJournalReported: a project that arrives with a journal in .hkwfs (here as
// a release archive leaves it: directory 0700, journal 0600, naming a temporary of the
// attacker's that would replace a.txt) gets a harmless patch applied, exit 0; the journal is
// named once on stderr as left alone, and neither a.txt nor the journal is touched.
func TestPatchPlantedJournalReported(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // this user's journal key, made on first use
	write := func(rel, data string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum := func(s string) string {
		return hex.EncodeToString(binary.BigEndian.AppendUint32(nil, crc32.Checksum([]byte(s), crc32.MakeTable(crc32.Castagnoli))))
	}
	write("a.txt", "old\n")
	write("b.txt", "b\n")
	write(".a.txt.hk-00000000000000aa.tmp", "attacker's\n")
	a, tmp := filepath.Join(root, "a.txt"), filepath.Join(root, ".a.txt.hk-00000000000000aa.tmp")
	op, _ := json.Marshal(map[string]any{"op": map[string]any{"kind": "write", "name": a, "temp": tmp,
		"old": map[string]any{"type": "file", "size": 4, "crc32c": sum("old\n")},
		"new": map[string]any{"type": "file", "size": 11, "crc32c": sum("attacker's\n")}}})
	head, _ := json.Marshal(struct {
		WFS  int    `json:"wfs"`
		ID   string `json:"id"`
		PID  int    `json:"pid"`
		Root string `json:"root"`
	}{2, "00000000000000cc", 1, root}) // marshalled: a Windows root's backslashes are escaped
	journal := filepath.Join(root, ".hkwfs", "00000000000000cc.journal")
	write(".hkwfs/00000000000000cc.journal", string(head)+"\n"+string(op)+"\n"+`{"mark":"commit"}`+"\n")
	if err := os.Chmod(filepath.Join(root, ".hkwfs"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(journal, 0o600); err != nil {
		t.Fatal(err)
	}

	var out, errb bytes.Buffer
	code := run(t.Context(), []string{"patch", "apply", "--root", root}, strings.NewReader("*** Begin Patch\n*** Update File: b.txt\n@@\n-b\n+B\n*** End Patch\n"), &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	want := "harnesskit patch apply: wfs: left alone the journal " + journal + ": "
	if !strings.HasPrefix(errb.String(), want) || strings.Count(errb.String(), "\n") != 1 {
		t.Errorf("stderr = %q, want one line starting %q", errb.String(), want)
	}
	for rel, data := range map[string]string{"a.txt": "old\n", "b.txt": "B\n", ".a.txt.hk-00000000000000aa.tmp": "attacker's\n"} {
		if got, _ := os.ReadFile(filepath.Join(root, rel)); string(got) != data {
			t.Errorf("%s = %q, want %q", rel, got, data)
		}
	}
	if _, err := os.Lstat(journal); err != nil {
		t.Errorf("the planted journal was removed: %v", err)
	}
}
