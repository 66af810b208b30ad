package pathguard_test

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/harnesskit/harnesskit/pathguard"
	"pgregory.net/rapid"
)

// genSlashPath draws a path over '/' with names, dots, "..cache" and empty segments, but
// no drive letters, no backslashes and no leading "//" (a UNC prefix for Windows).
func genSlashPath() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		segs := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "x y", ".", "..", "", "..cache", "~"}), 0, 6).Draw(t, "segs")
		p := strings.Join(segs, "/")
		if rapid.Bool().Draw(t, "abs") {
			p = "/" + p
		}
		if rapid.Bool().Draw(t, "trailing") {
			p += "/"
		}
		if strings.HasPrefix(p, "//") {
			p = "/" + strings.TrimLeft(p, "/")
		}
		return p
	})
}

// TestPropFlavorsAgree: on paths with neither drive letters nor backslashes, the Windows
// flavour gives the POSIX answer with '\' for '/' (the first property).
func TestPropFlavorsAgree(t *testing.T) { rapid.Check(t, propFlavorsAgree) }

// FuzzPropFlavorsAgree runs the same property under the coverage-guided fuzzer.
func FuzzPropFlavorsAgree(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propFlavorsAgree)) }

func propFlavorsAgree(t *rapid.T) {
	posix := pathguard.POSIX("/tmp/cwd")
	win := pathguard.Windows("/tmp/cwd", nil)
	op := rapid.SampledFrom([]string{"isAbs", "normalize", "join", "resolve"}).Draw(t, "op")
	args := rapid.SliceOfN(genSlashPath(), 1, 3).Draw(t, "args")
	p := applyOp(posix, op, args)
	w := strings.ReplaceAll(applyOp(win, op, args), `\`, "/")
	if p != w {
		t.Fatalf("%s%q: posix %q, windows %q", op, args, p, w)
	}
}

// collapseUNC is the UNC rule of spec F9, written independently: unless a starts with
// exactly two separators and a name (an intended UNC path), a leading run of two or more
// separators becomes one.
func collapseUNC(a, joined string) string {
	isSep := func(c byte) bool { return c == '/' || c == '\\' }
	if len(a) > 2 && isSep(a[0]) && isSep(a[1]) && !isSep(a[2]) {
		return joined
	}
	trimmed := strings.TrimLeft(joined, `/\`)
	if len(joined)-len(trimmed) >= 2 {
		return `\` + trimmed
	}
	return joined
}

func isRoot(f pathguard.Flavor, p string) bool {
	return f.IsAbs(p) && f.Normalize(p+string(f.Sep())+"..") == p
}

// TestPropJoinNormalize is spec property 2.
func TestPropJoinNormalize(t *testing.T) {
	flavors := []pathguard.Flavor{pathguard.POSIX("/c"), pathguard.Windows(`C:\c`, nil)}
	rapid.Check(t, func(t *rapid.T) {
		f := flavors[rapid.IntRange(0, 1).Draw(t, "flavor")]
		a := genSlashPath().Filter(func(s string) bool { return s != "" }).Draw(t, "a")
		b := genSlashPath().Filter(func(s string) bool { return !f.IsAbs(s) }).Draw(t, "b")
		if f.Name() == "windows" {
			a = strings.ReplaceAll(a, "/", `\`)
		}
		j := f.Join(a, b)
		if b != "" {
			joined := a + string(f.Sep()) + b
			if f.Name() == "windows" {
				joined = collapseUNC(a, joined)
			}
			if want := f.Normalize(joined); j != want {
				t.Fatalf("Join(%q, %q) = %q, want Normalize(a+sep+b) = %q", a, b, j, want)
			}
		}
		endsSep := strings.HasSuffix(j, string(f.Sep()))
		bSep := strings.HasSuffix(b, "/") || b == "" && (strings.HasSuffix(a, "/") || strings.HasSuffix(a, `\`))
		if endsSep != bSep && !isRoot(f, j) {
			t.Fatalf("Join(%q, %q) = %q: ends with separator %v, input %v", a, b, j, endsSep, bSep)
		}
	})
}

// TestPropPOSIXMatchesFilepath is the differential test against path/filepath on the
// inputs where Node's and Go's rules are documented to agree: Normalize is filepath.Clean
// (plus Node's kept trailing '/'), Join is filepath.Join when the last element has no
// trailing '/', IsAbs is filepath.IsAbs, and Resolve of an absolute base is
// filepath.Join(base, p) or filepath.Clean(p) for an absolute p.
func TestPropPOSIXMatchesFilepath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("path/filepath follows Windows rules on windows; the POSIX flavour is compared on Unix-like systems")
	}
	f := pathguard.POSIX("/cwd")
	rapid.Check(t, func(t *rapid.T) {
		p := genSlashPath().Draw(t, "p")
		base := "/" + genSlashPath().Draw(t, "base")
		if got, want := f.IsAbs(p), filepath.IsAbs(p); got != want {
			t.Fatalf("IsAbs(%q) = %v, filepath %v", p, got, want)
		}
		want := filepath.Clean(p)
		if strings.HasSuffix(p, "/") && want != "/" {
			want += "/" // Node keeps the trailing separator; Go drops it
		}
		if got := f.Normalize(p); got != want {
			t.Fatalf("Normalize(%q) = %q, filepath.Clean gives %q", p, got, want)
		}
		if !strings.HasSuffix(p, "/") && p != "" {
			if got, want := f.Join(base, p), filepath.Join(base, p); got != want {
				t.Fatalf("Join(%q, %q) = %q, filepath.Join %q", base, p, got, want)
			}
		}
		want = filepath.Join(base, p)
		if filepath.IsAbs(p) {
			want = filepath.Clean(p)
		}
		if got := f.Resolve(base, p); got != want {
			t.Fatalf("Resolve(%q, %q) = %q, want %q", base, p, got, want)
		}
	})
}

// TestPropSearchDomain is spec property 4.
func TestPropSearchDomain(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tool := rapid.SampledFrom([]string{"grep", "glob", "Grep", "GLOB", "read", "list", "bash", ""}).Draw(t, "tool")
		var val any = rapid.OneOf(
			rapid.Map(genSlashPath(), func(s string) any { return s }),
			rapid.Just[any](nil), rapid.Just[any](42), rapid.Just[any](true), rapid.Just[any](map[string]any{}),
		).Draw(t, "path")
		project := rapid.SampledFrom([]string{"", "/ws/proj", "proj"}).Draw(t, "project")
		never := func(string) error { return fs.ErrNotExist }
		always := func(string) error { return nil }
		g := pathguard.NewSearchGuard(pathguard.WithFlavor(pathguard.POSIX("/")), pathguard.WithStat(never))
		s, isString := val.(string)
		args := map[string]any{"path": val}
		err := g.Check(tool, args, project)
		if (tool != "grep" && tool != "glob") || !isString || s == "" || project == "" {
			if err != nil {
				t.Fatalf("Check(%q, %v, %q) = %v, want pass", tool, args, project, err)
			}
		} else if !errors.Is(err, pathguard.ErrMissing) {
			t.Fatalf("Check(%q, %v, %q) = %v, want ErrMissing", tool, args, project, err)
		}
		ga := pathguard.NewSearchGuard(pathguard.WithFlavor(pathguard.POSIX("/")), pathguard.WithStat(always))
		if err := ga.Check(tool, args, project); err != nil {
			t.Fatalf("with a stat that always succeeds: %v", err)
		}
	})
}

// TestPropSearchParity is spec property 6 (the stat function sees exactly S4's path) and
// property 5 (a permuted or concurrent batch gives the same per-call results).
func TestPropSearchParity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var fl pathguard.Flavor = pathguard.POSIX("/tmp")
		if rapid.Bool().Draw(t, "windows") {
			fl = pathguard.Windows(`C:\proc`, nil)
		}
		host := pathguard.Host(rapid.IntRange(0, 1).Draw(t, "host"))
		stat := func(name string) error {
			if strings.Contains(name, "b") {
				return &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
			}
			if strings.Contains(name, "~") {
				return &fs.PathError{Op: "stat", Path: name, Err: syscall.ENOTDIR}
			}
			return nil
		}
		type call struct{ tool, raw string }
		calls := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) call {
			return call{rapid.SampledFrom([]string{"grep", "glob"}).Draw(t, "tool"), genSlashPath().Filter(func(s string) bool { return s != "" }).Draw(t, "raw")}
		}), 1, 8).Draw(t, "calls")
		project := "/ws/proj"
		if fl.Name() == "windows" {
			project = `D:\ws`
		}
		var mu sync.Mutex
		var asked []string
		g := pathguard.NewSearchGuard(pathguard.WithFlavor(fl), pathguard.WithHost(host), pathguard.WithStat(func(name string) error {
			mu.Lock()
			asked = append(asked, name)
			mu.Unlock()
			return stat(name)
		}))
		results := make([]error, len(calls))
		for i, c := range calls {
			results[i] = g.Check(c.tool, map[string]any{"path": c.raw}, project)
			want := fl.Join(project, c.raw)
			switch {
			case fl.IsAbs(c.raw):
				want = c.raw
			case host == pathguard.HostV2 || c.tool == "glob":
				want = fl.Resolve(project, c.raw)
			}
			if asked[len(asked)-1] != want || g.Resolve(c.tool, project, c.raw) != want {
				t.Fatalf("%s %q: stat asked %q, want %q", c.tool, c.raw, asked[len(asked)-1], want)
			}
		}
		order := rapid.Permutation(indexes(len(calls))).Draw(t, "order")
		var wg sync.WaitGroup
		again := make([]error, len(calls))
		for _, i := range order {
			wg.Go(func() { again[i] = g.Check(calls[i].tool, map[string]any{"path": calls[i].raw}, project) })
		}
		wg.Wait()
		for i := range calls {
			if fmt.Sprint(again[i]) != fmt.Sprint(results[i]) {
				t.Fatalf("call %d: sequential %v, permuted/concurrent %v", i, results[i], again[i])
			}
		}
	})
}

func indexes(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// refRealpath is an independent, naive `realpath -m`: it walks components with os.Lstat,
// splices link targets in front of the remaining components, lets ".." pop the resolved
// prefix, and treats missing components as plain names.
func refRealpath(p string) (string, error) {
	comps := strings.Split(p, "/")
	cur := "/"
	links := 0
	for len(comps) > 0 {
		c := comps[0]
		comps = comps[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				cur = next
				continue
			}
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > 40 {
			return "", errors.New("too many links")
		}
		dest, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(dest, "/") {
			cur = "/"
		}
		comps = append(strings.Split(dest, "/"), comps...)
	}
	return cur, nil
}

func lexWithin(base, p string) bool {
	return p == base || strings.HasPrefix(p, base+"/") || base == "/"
}

// TestPropContainmentSound is spec property 7, on a real temp directory with random
// symlinks (inside, outside, absolute, relative, dangling, chains and loops): Check
// allows a target exactly when the target's lexical form is inside a base and the naive
// reference realpath of the raw target (walked physically: ".." after a link applies
// where the link led) lies inside a base's real path. Property 9 (Rel round trip) is
// checked on every allowed target, and property 8 (CheckAll agrees with Check) on the
// whole batch.
func TestPropContainmentSound(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlink creation needs privileges on windows; the soundness property runs on Unix-like systems")
	}
	top := realTempDir(t)
	n := 0
	var allowed, refused, unresolvable int
	defer func() {
		t.Logf("targets allowed %d, refused %d, unresolvable %d", allowed, refused, unresolvable)
		if allowed == 0 || refused == 0 {
			t.Errorf("the generator must reach both verdicts")
		}
	}()
	rapid.Check(t, func(t *rapid.T) {
		n++
		tmp := filepath.Join(top, fmt.Sprint(n))
		root, wt, out := filepath.Join(tmp, "root"), filepath.Join(tmp, "wt"), filepath.Join(tmp, "out")
		for _, d := range []string{root, wt, out} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		names := []string{"a", "b", "..cache", "l1", "l2", "l3"}
		dirs := []string{root, wt, out, root + "/a", out + "/a", wt + "/b"}
		for _, d := range dirs {
			_ = os.MkdirAll(d, 0o755)
		}
		_ = os.WriteFile(root+"/f", nil, 0o644)
		linkTargets := []string{"a", "..", "../..", "../out", "../../out/a", out, out + "/a", root, root + "/a", wt + "/b", "/nonexistent/x", "l1", "l2/..", "../root/l3", "f/x", "missing/../.."}
		nlinks := rapid.IntRange(0, 6).Draw(t, "nlinks")
		for i := range nlinks {
			dir := rapid.SampledFrom(dirs).Draw(t, fmt.Sprint("linkdir", i))
			name := rapid.SampledFrom(names[3:]).Draw(t, fmt.Sprint("linkname", i))
			dest := rapid.SampledFrom(linkTargets).Draw(t, fmt.Sprint("linkdest", i))
			_ = os.Symlink(dest, filepath.Join(dir, name))
		}
		c, err := pathguard.NewContainment(root, pathguard.WithPathFlavor(pathguard.POSIX("/")), pathguard.WithWorktrees(wt), pathguard.WithCaseFold(false))
		if err != nil {
			t.Fatal(err)
		}
		targets := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) string {
			segs := rapid.SliceOfN(rapid.SampledFrom(append(names, ".", "..", "x")), 0, 5).Draw(t, "segs")
			p := strings.Join(segs, "/")
			switch rapid.IntRange(0, 3).Draw(t, "anchor") {
			case 1:
				p = root + "/" + p
			case 2:
				p = wt + "/" + p
			case 3:
				p = tmp + "/" + p
			}
			if p == "" {
				p = "."
			}
			return p
		}), 1, 6).Draw(t, "targets")
		realRoot, _ := refRealpath(root)
		realWt, _ := refRealpath(wt)
		anyErr := false
		for _, target := range targets {
			got, err := c.Check(target)
			abs, raw := path.Clean(target), target
			if !path.IsAbs(target) {
				abs, raw = path.Join(root, target), root+"/"+target
			}
			// The real path is physical: the raw target is walked, ".." after a link
			// applies to where the link led.
			ref, refErr := refRealpath(raw)
			if refErr != nil {
				if !errors.Is(err, pathguard.ErrResolve) {
					t.Fatalf("Check(%q): reference fails (%v), Check gives %v", target, refErr, err)
				}
				anyErr = true
				unresolvable++
				continue
			}
			wantIn := (lexWithin(root, abs) || lexWithin(wt, abs)) && (lexWithin(realRoot, ref) || lexWithin(realWt, ref))
			if (err == nil) != wantIn {
				t.Fatalf("Check(%q) = %+v, %v; reference real %q, inside %v", target, got, err, ref, wantIn)
			}
			if err != nil {
				anyErr = true
				refused++
				if !errors.Is(err, pathguard.ErrOutside) {
					t.Fatalf("Check(%q) = %v, want ErrOutside", target, err)
				}
				continue
			}
			allowed++
			if got.Real != ref {
				t.Fatalf("Check(%q).Real = %q, reference %q", target, got.Real, ref)
			}
			if back := pathguard.POSIX("/").Resolve(root, got.Rel); back != got.Abs {
				t.Fatalf("Rel round trip: Resolve(root, %q) = %q, Abs %q", got.Rel, back, got.Abs)
			}
		}
		all, err := c.CheckAll(targets...)
		if (err != nil) != anyErr {
			t.Fatalf("CheckAll err = %v, individual errors %v", err, anyErr)
		}
		for i, target := range targets {
			one, _ := c.Check(target)
			if all[i] != one {
				t.Fatalf("CheckAll[%d] = %+v, Check = %+v", i, all[i], one)
			}
		}
	})
}

// TestPropRescueSafety is spec property 10.
func TestPropRescueSafety(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		existing := map[string]bool{}
		for _, p := range rapid.SliceOfN(rapid.SampledFrom([]string{"/home/me/ws", "/home/me/ws/src", "/home/me/ws/a/b", "/x/ws/src", "/home/me/ws/ws"}), 0, 5).Draw(t, "exists") {
			existing[p] = true
		}
		stat := func(name string) error {
			if existing[name] {
				return nil
			}
			return fs.ErrNotExist
		}
		r := pathguard.NewRescuer(pathguard.WithFlavor(pathguard.POSIX("/")), pathguard.WithStat(stat))
		args := map[string]any{}
		for _, k := range []string{"filePath", "path", "other"} {
			if rapid.Bool().Draw(t, "has "+k) {
				args[k] = "/" + genSlashPath().Draw(t, k)
			}
		}
		before := maps.Clone(args)
		tool := rapid.SampledFrom([]string{"read", "list", "glob", "grep", "edit"}).Draw(t, "tool")
		out, key, changed := r.Rescue(tool, args, "/home/me/ws")
		if !maps.EqualFunc(before, args, func(a, b any) bool { return a == b }) {
			t.Fatalf("input mutated")
		}
		diff := 0
		for k, v := range out {
			if args[k] != v {
				diff++
				if k != key || !existing[v.(string)] {
					t.Fatalf("key %q changed to %v (reported key %q)", k, v, key)
				}
			}
		}
		if diff > 1 || (diff == 1) != changed {
			t.Fatalf("%d keys changed, changed=%v", diff, changed)
		}
	})
}
