package pathguard_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/pathguard"
)

// flavorSeeds follow the spec vectors and the examples (keep in sync with
// ExampleWindows and ExamplePOSIX).
var flavorSeeds = [][2]string{
	{"/ws/proj", "sub/"}, {"/ws/proj", "f.txt/.."}, {"/ws/proj", "a//b/./c"}, {"/ws/proj", "~/x"},
	{`D:\workspace`, "C:src"}, {`D:\workspace`, `\\server\share\x`}, {`D:\workspace`, `\\?\C:\x`},
	{`D:\workspace`, `//server`}, {"C:", "x"}, {"//", "x"}, {`\\.\pipe`, ".."}, {"", ""}, {"a/../", "C:"},
}

// checkFlavor asserts the invariants every flavour keeps on any input: no panic (the
// fuzzer reports those), an absolute Resolve, idempotent Resolve and Normalize (outside
// the shapes where Node itself is not, see props_internal_test.go), and Join agreeing
// with Normalize.
func checkFlavor(t *testing.T, f pathguard.Flavor, a, b string) {
	r := f.Resolve(a, b)
	if !f.IsAbs(r) {
		t.Fatalf("%s Resolve(%q, %q) = %q is not absolute", f.Name(), a, b, r)
	}
	bare := r == `\\?\` || r == `\\.\`
	if !bare && f.Resolve(r) != r {
		t.Fatalf("%s Resolve not idempotent: %q -> %q", f.Name(), r, f.Resolve(r))
	}
	n := f.Normalize(a)
	colonRel := f.Name() == "windows" && !f.IsAbs(n) && strings.Contains(n, ":")
	if n != `\\?\` && n != `\\.\` && !colonRel && f.Normalize(n) != n {
		t.Fatalf("%s Normalize not idempotent: %q -> %q -> %q", f.Name(), a, n, f.Normalize(n))
	}
	j := f.Join(a, b)
	if a == "" && b == "" && j != "." {
		t.Fatalf("Join of empties = %q", j)
	}
	_ = f.Within(r, f.Resolve(r, b))
	_, _ = f.Rel(r, f.Resolve(a))
	if rel, ok := f.Rel(r, r); !ok || rel != "." {
		t.Fatalf("%s Rel(%q, itself) = %q, %v", f.Name(), r, rel, ok)
	}
	if !bare && !f.Within(r, r) {
		t.Fatalf("%s Within(%q, itself) = false", f.Name(), r)
	}
}

func FuzzPOSIX(f *testing.F) {
	for _, s := range flavorSeeds {
		f.Add(s[0], s[1])
	}
	fl := pathguard.POSIX("/tmp")
	f.Fuzz(func(t *testing.T, a, b string) {
		checkFlavor(t, fl, a, b)
		if r := fl.Resolve(a, b); strings.Contains(r, "//") || strings.HasSuffix(r, "/") && r != "/" {
			t.Fatalf("Resolve(%q, %q) = %q has a doubled or trailing slash", a, b, r)
		}
	})
}

func FuzzWindows(f *testing.F) {
	for _, s := range flavorSeeds {
		f.Add(s[0], s[1])
	}
	fl := pathguard.Windows(`C:\proc`, func(d string) (string, bool) { return `D:\dcwd`, strings.EqualFold(d, "D:") })
	f.Fuzz(func(t *testing.T, a, b string) {
		checkFlavor(t, fl, a, b)
		if r := fl.Resolve(a, b); strings.Contains(r, "/") {
			t.Fatalf("Resolve(%q, %q) = %q contains '/'", a, b, r)
		}
	})
}

// FuzzSearchCheckJSON: any argument bytes and path give a verdict without panicking, and
// only the two refusal kinds.
func FuzzSearchCheckJSON(f *testing.F) {
	f.Add("grep", `{"path":"sub","pattern":"x"}`, "/ws/proj")
	f.Add("glob", `{"path":"f.txt/child"}`, "/ws/proj")
	f.Add("grep", `{"path":`, "/ws/proj")
	f.Add("glob", `{"path":"C:src"}`, `D:\ws`)
	g := pathguard.NewSearchGuard(pathguard.WithFlavor(pathguard.POSIX("/")), pathguard.WithStat(func(name string) error {
		if strings.Contains(name, "f") {
			return pathguard.ErrMissing
		}
		return nil
	}))
	f.Fuzz(func(t *testing.T, tool, args, project string) {
		err := g.CheckJSON(tool, json.RawMessage(args), project)
		if err != nil && !errors.Is(err, pathguard.ErrMissing) {
			t.Fatalf("unexpected error %v", err)
		}
	})
}

// FuzzContainment: any target gives Allowed, Outside or Resolve without panicking, and
// an allowed target's Real path lies under a real base.
func FuzzContainment(f *testing.F) {
	f.Add("a/b.txt")
	f.Add("../x")
	f.Add("link/x")
	f.Add("/etc/passwd")
	f.Add("..cache/x")
	f.Add("loop/x")
	f.Add("a\x00b")
	f.Add("back/../../etc/x")
	f.Add("link/../ws/a/x")
	f.Add("f/../a/./x")
	f.Add(strings.Repeat("a/", 1025))
	f.Add(strings.Repeat("x", 4097))
	fl := pathguard.POSIX("/")
	res := newFakeFS(fl, false, map[string]fakeNode{
		"/": {dir: true}, "/ws": {dir: true}, "/ws/a": {dir: true}, "/ws/f": {},
		"/ws/link": {link: "/etc"}, "/ws/loop": {link: "loop"}, "/ws/back": {link: "../ws/a"}, "/etc": {dir: true},
	})
	c, err := pathguard.NewContainment("/ws", pathguard.WithPathFlavor(fl), pathguard.WithResolver(res))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, target string) {
		got, err := c.Check(target)
		var pe *pathguard.Error
		if err != nil && (!errors.As(err, &pe) || pe.Kind != pathguard.KindOutside && pe.Kind != pathguard.KindResolve) {
			t.Fatalf("Check(%q) = %v", target, err)
		}
		if err == nil && !fl.Within("/ws", got.Real) {
			t.Fatalf("Check(%q) allowed real path %q outside /ws", target, got.Real)
		}
	})
}

// FuzzContainmentWindows: the Windows flavour gives Allowed, Outside or Resolve for any
// target without panicking; an allowed target's Real lies under the root and none of its
// components is a name Windows rewrites.
func FuzzContainmentWindows(f *testing.F) {
	for _, s := range []string{`a\b.txt`, `..\x`, `x.`, `nul.txt`, `a:b`, `C:x`, `\ws\a`, `D:\WS\A`, `jump\..\ws\a`, `wor` + "\u212A"} {
		f.Add(s)
	}
	win := pathguard.Windows(`C:\proc`, nil)
	res := newFakeFS(win, true, map[string]fakeNode{
		`D:\`: {dir: true}, `D:\ws`: {dir: true}, `D:\ws\a`: {dir: true}, `D:\ws\jump`: {link: `E:\x`}, `E:\`: {dir: true},
	})
	c, err := pathguard.NewContainment(`D:\ws`, pathguard.WithPathFlavor(win), pathguard.WithResolver(res))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, target string) {
		got, err := c.Check(target)
		var pe *pathguard.Error
		if err != nil && (!errors.As(err, &pe) || pe.Kind != pathguard.KindOutside && pe.Kind != pathguard.KindResolve) {
			t.Fatalf("Check(%q) = %v", target, err)
		}
		if err != nil {
			return
		}
		if !win.Within(`D:\ws`, got.Real) {
			t.Fatalf("Check(%q) allowed real path %q outside D:\\ws", target, got.Real)
		}
		for _, seg := range strings.FieldsFunc(got.Abs[3:], func(r rune) bool { return r == '\\' }) {
			if strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " ") || strings.Contains(seg, ":") {
				t.Fatalf("Check(%q) allowed the rewritten name %q", target, seg)
			}
		}
	})
}
