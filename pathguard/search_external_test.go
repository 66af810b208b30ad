package pathguard_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/harnesskit/harnesskit/pathguard"
)

// searchTree builds the spec's project P (f.txt, sub/, broken, loop, "spaced dir ",
// src/) next to a sibling directory, and returns P.
func searchTree(t testing.TB) string {
	t.Helper()
	tmp := realTempDir(t)
	mkTree(t, tmp, "proj/f.txt", "proj/sub/", "proj/src/", "proj/spaced dir /",
		"proj/broken -> nowhere", "proj/loop -> loop", "sibling/")
	return filepath.Join(tmp, "proj")
}

// recorder collects observer events.
type recorder struct {
	mu     sync.Mutex
	events []pathguard.Event
}

func (r *recorder) observe(e pathguard.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func missingMsg(resolved, raw, tool string) string {
	return "Search path does not exist: " + resolved + ` (from "` + raw + `"). The ` + tool +
		" search was blocked before ripgrep ran. Verify the target path, or list its parent directory to find the correct location."
}

// TestSearchCheckOS runs the search-path edge cases (spec §5.1) on a real temp tree with
// os.Stat.
func TestSearchCheckOS(t *testing.T) {
	posixOnDisk(t)
	P := searchTree(t)
	tests := []struct {
		name     string
		tool     string
		host     pathguard.Host
		args     map[string]any
		project  string
		wantKind pathguard.Kind
		wantMsg  string // exact message when set
		wantPref string // message prefix when set
		outcome  pathguard.Outcome
	}{
		{name: "E1_read_missing", tool: "read", args: map[string]any{"path": "nope"}},
		{name: "E1_list_missing", tool: "list", args: map[string]any{"path": "nope"}},
		{name: "E1_bash_missing", tool: "bash", args: map[string]any{"path": "nope"}},
		{name: "E1_ast_grep_search_missing", tool: "ast_grep_search", args: map[string]any{"path": "nope"}},
		{name: "E2_Grep_other_case", tool: "Grep", args: map[string]any{"path": "nope"}},
		{name: "E3_nil_args", tool: "grep", args: nil},
		{name: "E3_empty_args", tool: "grep", args: map[string]any{}},
		{name: "E3_number", tool: "grep", args: map[string]any{"path": 42}},
		{name: "E3_null", tool: "grep", args: map[string]any{"path": nil}},
		{name: "E3_bool", tool: "glob", args: map[string]any{"path": true}},
		{name: "E3_object", tool: "glob", args: map[string]any{"path": map[string]any{}}},
		{name: "E4_empty_path", tool: "grep", args: map[string]any{"path": ""}},
		{name: "E5_no_project_relative", tool: "grep", project: "-", args: map[string]any{"path": "missing"}},
		{name: "E6_no_project_absolute", tool: "grep", project: "-", args: map[string]any{"path": "/abs/missing"}},
		{name: "E7_sub_grep", tool: "grep", args: map[string]any{"path": "sub"}, outcome: pathguard.OutcomePass},
		{name: "E7_sub_glob", tool: "glob", args: map[string]any{"path": "sub"}, outcome: pathguard.OutcomePass},
		{name: "E8_grep_absolute_file", tool: "grep", args: map[string]any{"path": P + "/f.txt"}, outcome: pathguard.OutcomePass},
		{name: "E9_glob_absolute_file", tool: "glob", args: map[string]any{"path": P + "/f.txt"}, outcome: pathguard.OutcomePass},
		{name: "E10_glob_missing", tool: "glob", args: map[string]any{"path": "no-such-dir"}, wantKind: pathguard.KindMissing,
			wantMsg: missingMsg(P+"/no-such-dir", "no-such-dir", "glob"), outcome: pathguard.OutcomeMissing},
		{name: "E11_grep_absolute_missing", tool: "grep", args: map[string]any{"path": "/abs/no/such"}, wantKind: pathguard.KindMissing,
			wantMsg: missingMsg("/abs/no/such", "/abs/no/such", "grep"), outcome: pathguard.OutcomeMissing},
		{name: "E12_grep_file_child", tool: "grep", args: map[string]any{"path": "f.txt/child"}, wantKind: pathguard.KindNotDirectory,
			wantPref: "Search path is invalid: " + P + `/f.txt/child (from "f.txt/child").`, outcome: pathguard.OutcomeNotDirectory},
		{name: "E12_glob_file_child", tool: "glob", args: map[string]any{"path": "f.txt/child"}, wantKind: pathguard.KindNotDirectory,
			wantMsg: "Search path is invalid: " + P + `/f.txt/child (from "f.txt/child"). A path component is not a directory (ENOTDIR), so the glob search was blocked before ripgrep ran. Verify the target path and that every parent component is a directory.`},
		{name: "E13_v1_grep_file_slash", tool: "grep", args: map[string]any{"path": "f.txt/"}, wantKind: pathguard.KindNotDirectory,
			wantPref: "Search path is invalid: " + P + `/f.txt/ (from "f.txt/")`},
		{name: "E13_v1_glob_file_slash", tool: "glob", args: map[string]any{"path": "f.txt/"}},
		{name: "E13_v2_grep_file_slash", tool: "grep", host: pathguard.HostV2, args: map[string]any{"path": "f.txt/"}},
		{name: "E13_v2_glob_file_slash", tool: "glob", host: pathguard.HostV2, args: map[string]any{"path": "f.txt/"}},
		{name: "E14_relative_file_dotdot", tool: "grep", args: map[string]any{"path": "f.txt/.."}},
		{name: "E14_absolute_file_dotdot_raw", tool: "grep", args: map[string]any{"path": P + "/f.txt/.."}, wantKind: pathguard.KindNotDirectory},
		{name: "E15_dangling_symlink", tool: "grep", args: map[string]any{"path": "broken"}, wantKind: pathguard.KindMissing},
		{name: "E16_symlink_loop", tool: "grep", args: map[string]any{"path": "loop"}, outcome: pathguard.OutcomePassStatError},
		{name: "E18_padded_missing", tool: "grep", args: map[string]any{"path": "  padded  "}, wantKind: pathguard.KindMissing,
			wantMsg: missingMsg(P+"/  padded  ", "  padded  ", "grep")},
		{name: "E18_spaced_dir_exists", tool: "grep", args: map[string]any{"path": "spaced dir "}},
		{name: "E19_leading_space_not_trimmed", tool: "grep", args: map[string]any{"path": " src"}, wantKind: pathguard.KindMissing},
		{name: "E20_undefined", tool: "grep", args: map[string]any{"path": "undefined"}, wantKind: pathguard.KindMissing},
		{name: "E20_null_string", tool: "glob", args: map[string]any{"path": "null"}, wantKind: pathguard.KindMissing},
		{name: "E21_tilde", tool: "grep", args: map[string]any{"path": "~"}, wantKind: pathguard.KindMissing, wantMsg: missingMsg(P+"/~", "~", "grep")},
		{name: "E21_tilde_slash", tool: "grep", args: map[string]any{"path": "~/x"}, wantKind: pathguard.KindMissing, wantMsg: missingMsg(P+"/~/x", "~/x", "grep")},
		{name: "E22_existing_sibling_outside", tool: "grep", args: map[string]any{"path": "../sibling"}},
		{name: "E24_nul_byte", tool: "grep", args: map[string]any{"path": "a\x00b"}, outcome: pathguard.OutcomePassStatError},
		{name: "E32_sub_slash_v1_grep", tool: "grep", args: map[string]any{"path": "sub/"}},
		{name: "E33_absolute_dir_slash", tool: "grep", args: map[string]any{"path": P + "/sub/"}},
		{name: "E33_absolute_file_slash", tool: "glob", args: map[string]any{"path": P + "/f.txt/"}, wantKind: pathguard.KindNotDirectory},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			project := P
			if tc.project == "-" {
				project = ""
			}
			var rec recorder
			g := pathguard.NewSearchGuard(pathguard.WithHost(tc.host), pathguard.WithFlavor(pathguard.POSIX("/")), pathguard.WithObserver(rec.observe))
			before := cloneArgs(tc.args)
			err := g.Check(tc.tool, tc.args, project)
			if k := kindOf(t, err); k != tc.wantKind {
				t.Fatalf("kind = %v (%v), want %v", k, err, tc.wantKind)
			}
			if tc.wantKind != 0 && !errors.Is(err, kindSentinel(tc.wantKind)) {
				t.Errorf("errors.Is(sentinel) false for %v", err)
			}
			if tc.wantMsg != "" && err.Error() != tc.wantMsg {
				t.Errorf("message:\n got %s\nwant %s", err, tc.wantMsg)
			}
			if tc.wantPref != "" && !strings.HasPrefix(err.Error(), tc.wantPref) {
				t.Errorf("message:\n got %s\nwant prefix %s", err, tc.wantPref)
			}
			if tc.outcome != "" {
				if len(rec.events) != 1 || rec.events[0].Outcome != tc.outcome {
					t.Errorf("events = %+v, want one %q", rec.events, tc.outcome)
				}
			}
			if !equalArgs(before, tc.args) {
				t.Errorf("args modified: %v -> %v", before, tc.args)
			}
		})
	}
}

func cloneArgs(m map[string]any) string {
	b, _ := json.Marshal(m)
	return string(b)
}

func equalArgs(before string, m map[string]any) bool { return before == cloneArgs(m) }

// mapStat is a fake stat: listed paths answer with their error (nil = exists), anything
// else is not-exist. It records the names it was asked about.
type mapStat struct {
	mu    sync.Mutex
	paths map[string]error
	asked []string
}

func (m *mapStat) stat(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.asked = append(m.asked, name)
	if err, ok := m.paths[name]; ok {
		if err == nil {
			return nil
		}
		return &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// TestSearchCheckFake runs the cases that need an injected stat: the spec's literal
// /ws/proj paths, permission and network errors, a relative project directory, and the
// Windows flavour on any OS.
func TestSearchCheckFake(t *testing.T) {
	posix := pathguard.POSIX("/tmp")
	win := pathguard.Windows(`C:\proc`, func(d string) (string, bool) {
		if strings.EqualFold(d, "C:") {
			return `C:\Users\me`, true
		}
		return "", false
	})
	stat := map[string]error{
		"/ws/proj": nil, "/ws/proj/sub": nil, "/ws/proj/locked/x": syscall.EACCES, "proj": nil,
		`D:\ws`: nil, `D:\ws\reg-file.txt`: nil, `\\server\share\denied`: syscall.EACCES,
		`\\server\share\down`: syscall.ENETUNREACH, `\src`: nil,
	}
	tests := []struct {
		name      string
		flavor    pathguard.Flavor
		host      pathguard.Host
		tool      string
		project   string
		path      string
		wantKind  pathguard.Kind
		wantAsked string
		wantMsg   string
		outcome   pathguard.Outcome
	}{
		{name: "E10_exact_message", flavor: posix, tool: "glob", project: "/ws/proj", path: "no-such-dir", wantKind: pathguard.KindMissing, wantAsked: "/ws/proj/no-such-dir",
			wantMsg: `Search path does not exist: /ws/proj/no-such-dir (from "no-such-dir"). The glob search was blocked before ripgrep ran. Verify the target path, or list its parent directory to find the correct location.`},
		{name: "E11_absolute_named_twice", flavor: posix, tool: "grep", project: "/ws/proj", path: "/abs/no/such", wantKind: pathguard.KindMissing, wantAsked: "/abs/no/such",
			wantMsg: `Search path does not exist: /abs/no/such (from "/abs/no/such"). The grep search was blocked before ripgrep ran. Verify the target path, or list its parent directory to find the correct location.`},
		{name: "E17_permission_denied_passes", flavor: posix, tool: "grep", project: "/ws/proj", path: "locked/x", wantAsked: "/ws/proj/locked/x", outcome: pathguard.OutcomePassStatError},
		{name: "E21_tilde_not_expanded", flavor: posix, tool: "grep", project: "/ws/proj", path: "~", wantKind: pathguard.KindMissing, wantAsked: "/ws/proj/~"},
		{name: "E23_relative_project_v1_grep", flavor: posix, tool: "grep", project: "proj", path: "m", wantKind: pathguard.KindMissing, wantAsked: "proj/m",
			wantMsg: missingMsg("proj/m", "m", "grep")},
		{name: "E23_relative_project_glob", flavor: posix, tool: "glob", project: "proj", path: "m", wantKind: pathguard.KindMissing, wantAsked: "/tmp/proj/m",
			wantMsg: missingMsg("/tmp/proj/m", "m", "glob")},
		{name: "E25_windows_v1_grep_drive_relative", flavor: win, tool: "grep", project: `D:\ws`, path: "C:src", wantKind: pathguard.KindMissing, wantAsked: `D:\ws\C:src`},
		{name: "E25_windows_v1_glob_drive_relative", flavor: win, tool: "glob", project: `D:\ws`, path: "C:src", wantKind: pathguard.KindMissing, wantAsked: `C:\Users\me\src`},
		{name: "E25_windows_v2_grep_drive_relative", flavor: win, host: pathguard.HostV2, tool: "grep", project: `D:\ws`, path: "C:src", wantKind: pathguard.KindMissing, wantAsked: `C:\Users\me\src`},
		{name: "E26_windows_rooted_as_given", flavor: win, tool: "grep", project: `D:\ws`, path: `\src`, wantAsked: `\src`},
		{name: "E27_windows_unc_missing", flavor: win, tool: "grep", project: `D:\ws`, path: `\\server\share\x`, wantKind: pathguard.KindMissing, wantAsked: `\\server\share\x`},
		{name: "E27_windows_verbatim_missing", flavor: win, tool: "glob", project: `D:\ws`, path: `\\?\C:\x`, wantKind: pathguard.KindMissing, wantAsked: `\\?\C:\x`},
		{name: "E27_windows_unc_access_denied", flavor: win, tool: "grep", project: `D:\ws`, path: `\\server\share\denied`, wantAsked: `\\server\share\denied`, outcome: pathguard.OutcomePassStatError},
		{name: "E27_windows_unc_network_error", flavor: win, tool: "grep", project: `D:\ws`, path: `\\server\share\down`, wantAsked: `\\server\share\down`, outcome: pathguard.OutcomePassStatError},
		{name: "E28_windows_file_child_is_missing", flavor: win, tool: "grep", project: `D:\ws`, path: `reg-file.txt\child`, wantKind: pathguard.KindMissing, wantAsked: `D:\ws\reg-file.txt\child`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms := &mapStat{paths: stat}
			var rec recorder
			g := pathguard.NewSearchGuard(pathguard.WithFlavor(tc.flavor), pathguard.WithHost(tc.host), pathguard.WithStat(ms.stat), pathguard.WithObserver(rec.observe))
			err := g.Check(tc.tool, map[string]any{"path": tc.path}, tc.project)
			if k := kindOf(t, err); k != tc.wantKind {
				t.Fatalf("kind = %v (%v), want %v", k, err, tc.wantKind)
			}
			if len(ms.asked) != 1 || ms.asked[0] != tc.wantAsked {
				t.Errorf("stat asked %q, want [%q]", ms.asked, tc.wantAsked)
			}
			if tc.wantMsg != "" && err.Error() != tc.wantMsg {
				t.Errorf("message:\n got %s\nwant %s", err, tc.wantMsg)
			}
			if tc.outcome != "" && (len(rec.events) != 1 || rec.events[0].Outcome != tc.outcome || rec.events[0].Err == nil) {
				t.Errorf("events = %+v, want one %q with its error", rec.events, tc.outcome)
			}
		})
	}
}

// TestSearchCheckTiming covers E29: the verdict reflects the file system at check time.
func TestSearchCheckTiming(t *testing.T) {
	posixOnDisk(t)
	P := searchTree(t)
	g := pathguard.NewSearchGuard(pathguard.WithFlavor(pathguard.POSIX("/")))
	args := map[string]any{"path": "later"}
	tests := []struct {
		name     string
		before   func() error
		wantKind pathguard.Kind
	}{
		{name: "E29_missing_then_created", before: func() error { return nil }, wantKind: pathguard.KindMissing},
		{name: "E29_created_then_checked", before: func() error { return os.Mkdir(filepath.Join(P, "later"), 0o755) }},
		{name: "E29_deleted_then_checked", before: func() error { return os.Remove(filepath.Join(P, "later")) }, wantKind: pathguard.KindMissing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.before(); err != nil {
				t.Fatal(err)
			}
			if k := kindOf(t, g.Check("grep", args, P)); k != tc.wantKind {
				t.Errorf("kind = %v, want %v", k, tc.wantKind)
			}
		})
	}
}

// TestSearchCheckParallel covers E30: parallel calls with the same bad path are each
// refused independently (run with -race).
func TestSearchCheckParallel(t *testing.T) {
	posixOnDisk(t)
	P := searchTree(t)
	g := pathguard.NewSearchGuard(pathguard.WithFlavor(pathguard.POSIX("/")))
	tests := []struct {
		name string
		tool string
		path string
		want error
	}{
		{name: "E30_parallel_missing", tool: "grep", path: "bad", want: pathguard.ErrMissing},
		{name: "E30_parallel_not_directory", tool: "glob", path: "f.txt/x", want: pathguard.ErrNotDirectory},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs := make([]error, 32)
			var wg sync.WaitGroup
			for i := range errs {
				wg.Go(func() { errs[i] = g.Check(tc.tool, map[string]any{"path": tc.path}, P) })
			}
			wg.Wait()
			for i, err := range errs {
				if !errors.Is(err, tc.want) {
					t.Errorf("call %d: %v, want %v", i, err, tc.want)
				}
			}
		})
	}
}

// TestSearchCheckJSON covers E31.
func TestSearchCheckJSON(t *testing.T) {
	posixOnDisk(t)
	P := searchTree(t)
	g := pathguard.NewSearchGuard(pathguard.WithFlavor(pathguard.POSIX("/")))
	tests := []struct {
		name     string
		args     string
		wantKind pathguard.Kind
	}{
		{name: "E31_same_as_check", args: `{"path":"sub","pattern":"x"}`},
		{name: "E31_missing", args: `{"path":"nope","pattern":"x"}`, wantKind: pathguard.KindMissing},
		{name: "E31_invalid_json_passes", args: `{"path":`},
		{name: "E31_not_object_passes", args: `["nope"]`},
		{name: "E3_null_args", args: `null`},
		{name: "E3_number_path", args: `{"path":42}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if k := kindOf(t, g.CheckJSON("grep", json.RawMessage(tc.args), P)); k != tc.wantKind {
				t.Errorf("kind = %v, want %v", k, tc.wantKind)
			}
			var m map[string]any
			if json.Unmarshal([]byte(tc.args), &m) == nil {
				if a, b := kindOf(t, g.Check("grep", m, P)), kindOf(t, g.CheckJSON("grep", json.RawMessage(tc.args), P)); a != b {
					t.Errorf("Check %v != CheckJSON %v", a, b)
				}
			}
		})
	}
}

// TestSearchToolNamesAndKey: a host whose tools or argument key are named otherwise
// configures them; the defaults stay "grep", "glob" and "path", matched exactly.
func TestSearchToolNamesAndKey(t *testing.T) {
	missing := func(string) error { return errNotExist }
	fl := pathguard.POSIX("/")
	tests := []struct {
		name     string
		opts     []pathguard.SearchOption
		tool     string
		args     map[string]any
		wantKind pathguard.Kind
		wantRes  string
	}{
		{name: "defaults_grep", tool: "grep", args: map[string]any{"path": "m/"}, wantKind: pathguard.KindMissing, wantRes: "/ws/m/"},
		{name: "defaults_other_name_passes", tool: "search", args: map[string]any{"path": "m"}},
		{name: "renamed_grep_joins", opts: []pathguard.SearchOption{pathguard.WithToolNames("search", "find_files")}, tool: "search", args: map[string]any{"path": "m/"}, wantKind: pathguard.KindMissing, wantRes: "/ws/m/"},
		{name: "renamed_glob_resolves", opts: []pathguard.SearchOption{pathguard.WithToolNames("search", "find_files")}, tool: "find_files", args: map[string]any{"path": "m/"}, wantKind: pathguard.KindMissing, wantRes: "/ws/m"},
		{name: "renamed_old_name_passes", opts: []pathguard.SearchOption{pathguard.WithToolNames("search", "find_files")}, tool: "grep", args: map[string]any{"path": "m"}},
		{name: "empty_name_keeps_default", opts: []pathguard.SearchOption{pathguard.WithToolNames("", "find_files")}, tool: "grep", args: map[string]any{"path": "m"}, wantKind: pathguard.KindMissing, wantRes: "/ws/m"},
		{name: "key_renamed", opts: []pathguard.SearchOption{pathguard.WithPathKey("dir")}, tool: "grep", args: map[string]any{"dir": "m", "path": "ignored"}, wantKind: pathguard.KindMissing, wantRes: "/ws/m"},
		{name: "key_renamed_old_key_passes", opts: []pathguard.SearchOption{pathguard.WithPathKey("dir")}, tool: "grep", args: map[string]any{"path": "m"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := append([]pathguard.SearchOption{pathguard.WithFlavor(fl), pathguard.WithStat(missing)}, tc.opts...)
			err := pathguard.NewSearchGuard(opts...).Check(tc.tool, tc.args, "/ws")
			if k := kindOf(t, err); k != tc.wantKind {
				t.Fatalf("kind %v (%v), want %v", k, err, tc.wantKind)
			}
			if err != nil {
				var pe *pathguard.Error
				errors.As(err, &pe)
				if pe.Resolved != tc.wantRes || pe.Tool != tc.tool {
					t.Errorf("Resolved %q Tool %q, want %q %q", pe.Resolved, pe.Tool, tc.wantRes, tc.tool)
				}
			}
		})
	}
}
