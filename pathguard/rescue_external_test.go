package pathguard_test

import (
	"errors"
	"maps"
	"syscall"
	"testing"

	"github.com/harnesskit/harnesskit/pathguard"
)

// TestRescue runs the absolute-path rescue edge cases (spec §5.3) with an injected stat.
func TestRescue(t *testing.T) {
	posix := pathguard.POSIX("/")
	win := pathguard.Windows(`D:\ws`, nil)
	exists := map[string]error{
		"/home/me/ws": nil, "/home/me/ws/src": nil, "/home/me/ws/src/a.ts": nil, "/home/me/ws/lib": nil,
		"/home/someone/ws/src": nil, "/home/me/ws/b": nil, "/denied/ws/src": syscall.EACCES,
		`D:\ws`: nil, `D:\ws\src`: nil,
	}
	tests := []struct {
		name        string
		flavor      pathguard.Flavor
		tool        string
		workspace   string
		args        map[string]any
		wantKey     string
		wantValue   string
		wantChanged bool
	}{
		{name: "E34_rescued", tool: "read", args: map[string]any{"filePath": "/home/someone/ws/src/a.ts"}, wantKey: "filePath", wantValue: "/home/me/ws/src/a.ts", wantChanged: true},
		{name: "E35_candidate_missing", tool: "read", args: map[string]any{"filePath": "/home/someone/ws/src/b.ts"}},
		{name: "E36_ambiguous_anchor", tool: "read", args: map[string]any{"filePath": "/x/ws/a/ws/b"}},
		{name: "E37_longer_anchor_workspace_itself", tool: "list", args: map[string]any{"filePath": "/other/me/ws"}, wantKey: "filePath", wantValue: "/home/me/ws", wantChanged: true},
		{name: "E38_already_under_workspace", tool: "read", args: map[string]any{"filePath": "/home/me/ws/missing.ts"}},
		{name: "E39_dotdot_segment", tool: "read", args: map[string]any{"filePath": "/a/../ws/src"}},
		{name: "E39_dot_segment", tool: "read", args: map[string]any{"filePath": "/a/./ws/src"}},
		{name: "E40_relative", tool: "read", args: map[string]any{"filePath": "ws/src"}},
		{name: "E41_existing_not_rescued", tool: "read", args: map[string]any{"filePath": "/home/someone/ws/src"}},
		{name: "E42_non_string_skipped", tool: "glob", args: map[string]any{"filePath": 5, "path": "/home/someone/ws/lib"}, wantKey: "path", wantValue: "/home/me/ws/lib", wantChanged: true},
		{name: "E43_first_key_fails_second_rescued", tool: "grep", args: map[string]any{"filePath": "/nope/a", "path": "/home/someone/ws/lib"}, wantKey: "path", wantValue: "/home/me/ws/lib", wantChanged: true},
		{name: "E44_edit_not_considered", tool: "edit", args: map[string]any{"filePath": "/home/someone/ws/src/a.ts"}},
		{name: "E44_write_not_considered", tool: "write", args: map[string]any{"filePath": "/home/someone/ws/src/a.ts"}},
		{name: "E44_Read_exact_name", tool: "Read", args: map[string]any{"filePath": "/home/someone/ws/src/a.ts"}},
		{name: "E45_stat_eacces_skips", tool: "read", args: map[string]any{"filePath": "/denied/ws/src"}},
		{name: "E46_windows_slashes", flavor: win, tool: "glob", workspace: `D:\ws`, args: map[string]any{"path": "C:/Users/x/ws/src"}, wantKey: "path", wantValue: `D:\ws\src`, wantChanged: true},
		{name: "nil_args", tool: "read", args: nil},
		{name: "empty_workspace", tool: "read", workspace: "-", args: map[string]any{"filePath": "/home/someone/ws/src/a.ts"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fl, ws := tc.flavor, tc.workspace
			if fl == nil {
				fl = posix
			}
			switch ws {
			case "":
				ws = "/home/me/ws"
			case "-":
				ws = ""
			}
			ms := &mapStat{paths: exists}
			r := pathguard.NewRescuer(pathguard.WithFlavor(fl), pathguard.WithStat(ms.stat))
			before := maps.Clone(tc.args)
			out, key, changed := r.Rescue(tc.tool, tc.args, ws)
			if key != tc.wantKey || changed != tc.wantChanged {
				t.Fatalf("Rescue = key %q changed %v; want %q %v", key, changed, tc.wantKey, tc.wantChanged)
			}
			// E47: the input is never mutated.
			if !maps.EqualFunc(before, tc.args, func(a, b any) bool { return a == b }) {
				t.Errorf("input mutated: %v -> %v", before, tc.args)
			}
			if changed && out[key] != tc.wantValue {
				t.Errorf("out[%q] = %v, want %q", key, out[key], tc.wantValue)
			}
			for k, v := range tc.args {
				if k != key && out[k] != v {
					t.Errorf("out[%q] = %v, want unchanged %v", k, out[k], v)
				}
			}
		})
	}
}

// TestRescueCopy covers E47 explicitly: writing to the result leaves the input alone.
func TestRescueCopy(t *testing.T) {
	ms := &mapStat{paths: map[string]error{"/home/me/ws": nil, "/home/me/ws/src": nil}}
	r := pathguard.NewRescuer(pathguard.WithFlavor(pathguard.POSIX("/")), pathguard.WithStat(ms.stat))
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{name: "E47_changed", args: map[string]any{"path": "/x/ws/src"}},
		{name: "E47_unchanged", args: map[string]any{"path": "/elsewhere"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, _ := r.Rescue("grep", tc.args, "/home/me/ws")
			orig := tc.args["path"]
			out["path"] = "scribble"
			if tc.args["path"] != orig {
				t.Errorf("result aliases the input map")
			}
		})
	}
}

// TestRescueThenCheck covers E48.
func TestRescueThenCheck(t *testing.T) {
	ms := &mapStat{paths: map[string]error{"/home/me/ws": nil, "/home/me/ws/src": nil}}
	fl := pathguard.POSIX("/")
	r := pathguard.NewRescuer(pathguard.WithFlavor(fl), pathguard.WithStat(ms.stat))
	g := pathguard.NewSearchGuard(pathguard.WithFlavor(fl), pathguard.WithStat(ms.stat))
	args := map[string]any{"path": "/home/someone/ws/src"}
	tests := []struct {
		name     string
		rescue   bool
		wantKind pathguard.Kind
	}{
		{name: "E48_rescued_passes", rescue: true},
		{name: "E48_unrescued_missing", wantKind: pathguard.KindMissing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := args
			if tc.rescue {
				a, _, _ = r.Rescue("grep", args, "/home/me/ws")
			}
			err := g.Check("grep", a, "/home/me/ws")
			if k := kindOf(t, err); k != tc.wantKind {
				t.Errorf("kind = %v (%v), want %v", k, err, tc.wantKind)
			}
			if tc.wantKind != 0 && !errors.Is(err, pathguard.ErrMissing) {
				t.Errorf("not ErrMissing: %v", err)
			}
		})
	}
}
