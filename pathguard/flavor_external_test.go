package pathguard_test

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/harnesskit/harnesskit/pathguard"
)

type vectorCase struct {
	Name     string            `json:"name"`
	Flavor   string            `json:"flavor"`
	Cwd      string            `json:"cwd"`
	DriveCwd map[string]string `json:"driveCwd,omitempty"`
	Op       string            `json:"op"`
	Args     []string          `json:"args"`
	Want     string            `json:"want"`
}

func loadVectors(t testing.TB) []vectorCase {
	t.Helper()
	data, err := os.ReadFile("testdata/flavor-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []vectorCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cases) == 0 {
		t.Fatal("no vectors")
	}
	return doc.Cases
}

func flavorOf(name, cwd string, driveCwd map[string]string) pathguard.Flavor {
	if name == "windows" {
		return pathguard.Windows(cwd, func(d string) (string, bool) {
			v, ok := driveCwd[d]
			return v, ok
		})
	}
	return pathguard.POSIX(cwd)
}

func applyOp(f pathguard.Flavor, op string, args []string) string {
	switch op {
	case "isAbs":
		return strconv.FormatBool(f.IsAbs(args[0]))
	case "normalize":
		return f.Normalize(args[0])
	case "join":
		return f.Join(args...)
	case "resolve":
		return f.Resolve(args...)
	}
	return "unknown op " + op
}

// TestFlavorVectors replays the normative Node vectors of spec §5.2 (property 3).
func TestFlavorVectors(t *testing.T) {
	for _, tc := range loadVectors(t) {
		t.Run(tc.Name, func(t *testing.T) {
			f := flavorOf(tc.Flavor, tc.Cwd, tc.DriveCwd)
			if got := applyOp(f, tc.Op, tc.Args); got != tc.Want {
				t.Errorf("%s %s%q = %q, want %q", tc.Flavor, tc.Op, tc.Args, got, tc.Want)
			}
		})
	}
}

func TestFlavorWithinRel(t *testing.T) {
	posix := pathguard.POSIX("/")
	win := pathguard.Windows(`C:\`, nil)
	tests := []struct {
		name    string
		f       pathguard.Flavor
		base, p string
		within  bool
		rel     string
		relOK   bool
	}{
		{name: "E60_dotdot_name_inside", f: posix, base: "/w/root", p: "/w/root/..cache/x", within: true, rel: "..cache/x", relOK: true},
		{name: "E60_prefix_sibling_outside", f: posix, base: "/w/root", p: "/w/rootx/a", within: false, rel: "../rootx/a", relOK: true},
		{name: "equal", f: posix, base: "/w/root", p: "/w/root/", within: true, rel: ".", relOK: true},
		{name: "root_base", f: posix, base: "/", p: "/etc/passwd", within: true, rel: "etc/passwd", relOK: true},
		{name: "parent_not_within", f: posix, base: "/w/root", p: "/w", within: false, rel: "..", relOK: true},
		{name: "unnormalised_dotdot", f: posix, base: "/w/root", p: "/w/root/../x", within: false, rel: "../x", relOK: true},
		{name: "relative_refused", f: posix, base: "/w", p: "w/x", within: false, relOK: false},
		{name: "E62_posix_case_sensitive", f: posix, base: "/ws", p: "/WS/x", within: false, rel: "../WS/x", relOK: true},
		{name: "E79_windows_kelvin_sign_not_k", f: win, base: `D:\work`, p: `D:\wor` + "\u212A" + `\x`, within: false, rel: `..\wor` + "\u212A" + `\x`, relOK: true},
		{name: "E79_windows_long_s_not_s", f: win, base: `D:\src`, p: `D:\ſrc\x`, within: false, rel: `..\ſrc\x`, relOK: true},
		{name: "windows_non_ascii_folds", f: win, base: `D:\Équipe`, p: `d:\équipe\x`, within: true, rel: "x", relOK: true},
		{name: "E62_windows_always_folds", f: win, base: `D:\ws`, p: `d:\WS\File.txt`, within: true, rel: "File.txt", relOK: true},
		{name: "E61_windows_other_drive", f: win, base: `D:\ws`, p: `E:\x`, within: false, relOK: false},
		{name: "windows_drive_root_base", f: win, base: `C:\`, p: `c:/x/y`, within: true, rel: `x\y`, relOK: true},
		{name: "windows_unc", f: win, base: `\\srv\share\a`, p: `//SRV/Share/a/b`, within: true, rel: "b", relOK: true},
		{name: "windows_unc_other_share", f: win, base: `\\srv\share\a`, p: `\\srv\other\a`, within: false, relOK: false},
		{name: "windows_sibling", f: win, base: `D:\w\sub`, p: `D:\w\shared.txt`, within: false, rel: `..\shared.txt`, relOK: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.f.Within(tc.base, tc.p); got != tc.within {
				t.Errorf("Within(%q, %q) = %v, want %v", tc.base, tc.p, got, tc.within)
			}
			rel, ok := tc.f.Rel(tc.base, tc.p)
			if ok != tc.relOK || rel != tc.rel {
				t.Errorf("Rel(%q, %q) = %q, %v; want %q, %v", tc.base, tc.p, rel, ok, tc.rel, tc.relOK)
			}
		})
	}
}
