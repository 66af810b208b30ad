package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// pathguardTree builds the workspace the golden inputs refer to as $TMP.
func pathguardTree(t *testing.T) string {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"proj/sub", "proj/..cache", "out", "wt"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "proj/f.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tmp, "out"), filepath.Join(tmp, "proj/link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere", filepath.Join(tmp, "proj/broken")); err != nil {
		t.Fatal(err)
	}
	return tmp
}

// TestPathguardCLIGolden runs each verb on testdata/pathguard/<verb>.jsonl and compares
// the output with <verb>.golden ($TMP stands for the temp workspace; -update rewrites).
// The check and contains inputs are POSIX paths on a disk tree with symbolic links, so on
// Windows only resolve, which touches no disk, runs.
func TestPathguardCLIGolden(t *testing.T) {
	verbs := []string{"check", "resolve", "contains"}
	tmp := "/no-temp-tree"
	if runtime.GOOS == "windows" {
		verbs = []string{"resolve"}
	} else {
		tmp = pathguardTree(t)
	}
	for _, verb := range verbs {
		t.Run(verb, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata/pathguard", verb+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := run(t.Context(), []string{"pathguard", verb}, strings.NewReader(strings.ReplaceAll(string(in), "$TMP", tmp)), &out, &errb)
			if code != exitOK || errb.Len() > 0 {
				t.Fatalf("exit %d, stderr %q", code, errb.String())
			}
			got := strings.ReplaceAll(out.String(), tmp, "$TMP")
			if n, m := strings.Count(got, "\n"), strings.Count(strings.TrimSpace(string(in)), "\n")+1; n != m {
				t.Errorf("%d output lines for %d input lines", n, m)
			}
			checkGolden(t, filepath.Join("testdata/pathguard", verb+".golden"), got)
		})
	}
}

// TestPathguardCLIDefaultCwd: without "cwd", resolve falls back to the process's working
// directory for the native flavour and to C:\ for the Windows flavour on another OS.
func TestPathguardCLIDefaultCwd(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"windows": `C:\proj\m`, "posix": filepath.ToSlash(wd) + "/proj/m"}
	if runtime.GOOS == "windows" {
		want = map[string]string{"windows": filepath.Join(wd, "proj", "m")}
	}
	for flavor, w := range want {
		var out, errb bytes.Buffer
		in := `{"op":"resolve","flavor":"` + flavor + `","base":"proj","path":"m"}`
		if code := run(t.Context(), []string{"pathguard", "resolve"}, strings.NewReader(in), &out, &errb); code != exitOK {
			t.Fatalf("%s: exit %d, stderr %q", flavor, code, errb.String())
		}
		var got struct{ Result string }
		if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Result != w {
			t.Errorf("%s: resolve(proj, m) = %q (%v), want %q", flavor, got.Result, err, w)
		}
	}
}

func TestPathguardCLIErrors(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		stdin    string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{name: "help", args: []string{"pathguard", "-h"}, wantCode: exitOK, wantOut: "usage: harnesskit pathguard check"},
		{name: "verb_help", args: []string{"pathguard", "check", "-h"}, wantCode: exitOK, wantOut: "harnesskit pathguard contains"},
		{name: "no_verb", args: []string{"pathguard"}, wantCode: exitUsage, wantErr: "no verb given"},
		{name: "bad_json_line_2", args: []string{"pathguard", "resolve"}, stdin: `{"op":"join","flavor":"posix","base":"/a","path":"b"}` + "\n{nope\n",
			wantCode: exitUsage, wantOut: `{"result":"/a/b"}`, wantErr: "line 2:"},
		{name: "unknown_field", args: []string{"pathguard", "contains"}, stdin: `{"roots":["/"],"path":"x","extra":1}`, wantCode: exitUsage, wantErr: `unknown field "extra"`},
		{name: "unknown_flavor", args: []string{"pathguard", "check"}, stdin: `{"tool":"grep","flavor":"vms","directory":"/","path":"x"}`, wantCode: exitUsage, wantErr: `unknown flavor "vms"`},
		{name: "unknown_host", args: []string{"pathguard", "check"}, stdin: `{"tool":"grep","host":"v3","directory":"/","path":"x"}`, wantCode: exitUsage, wantErr: `unknown host "v3"`},
		{name: "unknown_op", args: []string{"pathguard", "resolve"}, stdin: `{"op":"split","base":"/","path":"x"}`, wantCode: exitUsage, wantErr: `unknown op "split"`},
		{name: "no_roots", args: []string{"pathguard", "contains"}, stdin: `{"roots":[],"path":"x"}`, wantCode: exitUsage, wantErr: `"roots" must name`},
		{name: "empty_input", args: []string{"pathguard", "check"}, stdin: "\n\n", wantCode: exitOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(t.Context(), tc.args, strings.NewReader(tc.stdin), &out, &errb)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.wantCode, errb.String())
			}
			if !strings.Contains(out.String(), tc.wantOut) || tc.wantOut == "" && out.Len() > 0 {
				t.Errorf("stdout %q, want %q", out.String(), tc.wantOut)
			}
			if !strings.Contains(errb.String(), tc.wantErr) || tc.wantErr == "" && errb.Len() > 0 {
				t.Errorf("stderr %q, want %q", errb.String(), tc.wantErr)
			}
		})
	}
}
