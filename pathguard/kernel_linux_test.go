package pathguard_test

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/harnesskit/harnesskit/pathguard"
	"pgregory.net/rapid"
)

// kernelCases is how many random trees the kernel-agreement property draws (one to three
// targets each) unless -rapid.checks asks for another number; -short draws a tenth.
const kernelCases = 2000

// kernelVerdict is what the kernel says about one raw target.
type kernelVerdict struct {
	landed string // the path the kernel opened (or would create), when known
	loop   bool   // the kernel gave up on a symlink loop (ELOOP)
	skip   string // why the kernel gives no answer to compare with ("" when it does)
}

// fdPath returns the path the kernel opened f at, read back from /proc/self/fd.
func fdPath(f *os.File) (string, error) {
	return os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
}

// kernelOpen is the independent resolver of the kernel-agreement property: it hands the raw
// absolute path to the kernel and reads back where it landed. For a target that does not
// exist it asks the kernel for the longest prefix it can open, then appends the missing
// names; for a dangling symlink as the last component it lets the kernel create the file
// the link leads to (O_CREAT follows it), reads the place back and removes the file. Paths
// the kernel cannot open for another reason (a "." or ".." after a missing name, a
// dangling link mid-path) are reported as skip.
func kernelOpen(raw string) kernelVerdict {
	if v, err := openLanded(raw); err == nil {
		return kernelVerdict{landed: v}
	} else if errors.Is(err, syscall.ELOOP) {
		return kernelVerdict{loop: true}
	} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return kernelVerdict{skip: "open: " + err.Error()}
	}
	comps := strings.Split(strings.TrimPrefix(raw, "/"), "/")
	prefix := func(k int) string { return "/" + strings.Join(comps[:k], "/") }
	k := 0 // the longest prefix the kernel opens
	base := "/"
	for k < len(comps) {
		v, err := openLanded(prefix(k + 1))
		if errors.Is(err, syscall.ELOOP) {
			return kernelVerdict{loop: true}
		}
		if err != nil {
			break
		}
		k, base = k+1, v
	}
	rest := comps[k:]
	var names []string
	for _, c := range rest {
		switch c {
		case "":
		case ".", "..":
			return kernelVerdict{skip: "dot segment after a missing name"}
		default:
			names = append(names, c)
		}
	}
	first := prefix(k + 1)
	if fi, err := os.Lstat(first); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if len(rest) != 1 {
			return kernelVerdict{skip: "dangling symlink before the last component"}
		}
		f, err := os.OpenFile(first, os.O_WRONLY|os.O_CREATE|syscall.O_CLOEXEC, 0o600)
		if err != nil {
			if errors.Is(err, syscall.ELOOP) {
				return kernelVerdict{loop: true}
			}
			return kernelVerdict{skip: "dangling symlink into a missing directory"}
		}
		landed, err := fdPath(f)
		f.Close()
		if err != nil {
			return kernelVerdict{skip: err.Error()}
		}
		if err := os.Remove(landed); err != nil {
			return kernelVerdict{skip: err.Error()}
		}
		return kernelVerdict{landed: landed}
	}
	landed := base
	for _, n := range names {
		landed = path.Join(landed, n)
	}
	return kernelVerdict{landed: landed}
}

func openLanded(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return fdPath(f)
}

// TestPropKernelAgreement is property 11: on real temporary trees with random symlinks
// (some leaving the root, some to "..", absolute, relative, dangling, chains, loops), for
// random targets made of names, ".", ".." and links, Check agrees with the kernel: it
// allows a target exactly when the target is lexically inside a base and the kernel
// opens it inside a base's real path, and then Real is where the kernel landed; a kernel
// symlink loop is KindResolve. A coverage guard fails the test when fewer than 10 % of the
// compared verdicts are "outside" or fewer than 5 % pass through a symlink.
func TestPropKernelAgreement(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("/proc/self/fd is not available; the kernel oracle needs Linux procfs")
	}
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == "100" {
		cases := kernelCases
		if testing.Short() {
			cases = kernelCases / 10
		}
		_ = f.Value.Set(fmt.Sprint(cases))
		defer f.Value.Set("100")
	}
	// One tree serves every case: each case adds its symlinks and removes them when done
	// (the oracle removes any file it creates), which keeps 2,000 cases to a few seconds.
	tmp := realTempDir(t)
	root, wt, out := tmp+"/root", tmp+"/wt", tmp+"/out"
	for _, d := range []string{root, root + "/a", root + "/a/b", root + "/..cache", wt, wt + "/b", out, out + "/a"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{root + "/f", out + "/f"} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	var compared, outside, throughLink, loops, allowed int
	skipped := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		n++
		dirs := []string{root, root + "/a", root + "/a/b", wt, wt + "/b", out}
		linkNames := []string{"l1", "l2", "l3"}
		linkTargets := []string{"a", "b", "..", "../..", "../out", "../../out/a", out, out + "/a", root, root + "/a",
			wt + "/b", tmp, "/nonexistent/x", "l1", "l2/..", "../root/l3", "f", "f/x", "missing", "new.txt", "../out/new"}
		var made []string
		defer func() {
			for _, l := range made {
				if err := os.Remove(l); err != nil {
					t.Fatalf("removing the case's symlink: %v", err)
				}
			}
		}()
		for i := range rapid.IntRange(2, 6).Draw(t, "nlinks") {
			dir := root // the first two links sit where relative targets start
			if i >= 2 {
				dir = rapid.SampledFrom(dirs).Draw(t, fmt.Sprint("linkdir", i))
			}
			name := rapid.SampledFrom(linkNames).Draw(t, fmt.Sprint("linkname", i))
			dest := rapid.SampledFrom(linkTargets).Draw(t, fmt.Sprint("linkdest", i))
			if os.Symlink(dest, filepath.Join(dir, name)) == nil {
				made = append(made, filepath.Join(dir, name))
			}
		}
		c, err := pathguard.NewContainment(root, pathguard.WithPathFlavor(pathguard.POSIX("/")), pathguard.WithWorktrees(wt), pathguard.WithCaseFold(false))
		if err != nil {
			t.Fatal(err)
		}
		words := []string{"a", "b", "..cache", "f", "x", ".", "..", "..", "l1", "l2", "l3", "l1", "l2"}
		targets := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) string {
			segs := rapid.SliceOfN(rapid.SampledFrom(words), 1, 5).Draw(t, "segs")
			p := strings.Join(segs, "/")
			switch rapid.IntRange(0, 3).Draw(t, "anchor") {
			case 1:
				p = root + "/" + p
			case 2:
				p = wt + "/" + p
			case 3:
				p = tmp + "/" + p
			}
			return p
		}), 1, 3).Draw(t, "targets")
		for _, target := range targets {
			raw, abs := target, path.Clean(target)
			if !path.IsAbs(target) {
				raw, abs = root+"/"+target, path.Join(root, target)
			}
			got, err := c.Check(target)
			kv := kernelOpen(raw)
			switch {
			case kv.loop:
				loops++
				if !errors.Is(err, pathguard.ErrResolve) {
					t.Fatalf("Check(%q) = %+v, %v; the kernel reports a symlink loop", target, got, err)
				}
				continue
			case kv.skip != "":
				skipped[kv.skip]++
				continue
			}
			compared++
			if kv.landed != abs {
				throughLink++
			}
			inside := (lexWithin(root, abs) || lexWithin(wt, abs)) && (lexWithin(root, kv.landed) || lexWithin(wt, kv.landed))
			if inside != (err == nil) {
				t.Fatalf("Check(%q) = %+v, %v; the kernel lands at %q (inside: %v)", target, got, err, kv.landed, inside)
			}
			if err == nil {
				allowed++
				if got.Real != kv.landed {
					t.Fatalf("Check(%q).Real = %q; the kernel lands at %q", target, got.Real, kv.landed)
				}
				continue
			}
			outside++
			if !errors.Is(err, pathguard.ErrOutside) {
				t.Fatalf("Check(%q) = %v; want ErrOutside (the kernel lands at %q)", target, err, kv.landed)
			}
		}
	})
	t.Logf("%d cases (trees of links); %d verdicts compared with the kernel: %d allowed, %d outside, %d through a symlink; %d kernel loops; not comparable: %v",
		n, compared, allowed, outside, throughLink, loops, skipped)
	if compared == 0 || outside*10 < compared || throughLink*20 < compared {
		t.Errorf("coverage: %d compared, %d outside (need >= 10%%), %d through a symlink (need >= 5%%)", compared, outside, throughLink)
	}
}
