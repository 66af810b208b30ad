package pathguard_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/harnesskit/harnesskit/pathguard"
)

// TestContainmentOS runs the containment edge cases (spec §5.4) on a real temp tree.
func TestContainmentOS(t *testing.T) {
	posixOnDisk(t)
	tmp := realTempDir(t)
	P := filepath.Join(tmp, "proj")
	out := filepath.Join(tmp, "outside")
	mkTree(t, tmp,
		"proj/a/b.txt", "proj/f.txt", "proj/real/", "proj/d/", "proj/abs/",
		"outside/secret.txt", "outside/x/",
		"proj/link -> "+out,
		"proj/dangling -> /etc/pathguard-newfile",
		"proj/abslink -> "+filepath.Join(P, "real"),
		"proj/out -> "+filepath.Join(out, "x"),
		"outside/x/back -> "+filepath.Join(P, "d"),
		"proj/loopa -> "+filepath.Join(P, "loopb"),
		"proj/loopb -> "+filepath.Join(P, "loopa"),
		"proj/rel -> ../outside",
		"proj/relin -> a/../real",
		"proj/..cache/",
		"rootlink -> proj",
		"wt/subdir/", "wt/shared.txt",
	)
	W := filepath.Join(tmp, "wt")
	tests := []struct {
		name      string
		root      string
		worktrees []string
		target    string
		wantKind  pathguard.Kind
		wantRel   string
		wantReal  string
		inRoot    bool
	}{
		{name: "E49_relative_inside", root: P, target: "a/b.txt", wantRel: "a/b.txt", wantReal: P + "/a/b.txt", inRoot: true},
		{name: "E50_absolute_inside", root: P, target: P + "/abs/inside.txt", wantRel: "abs/inside.txt", wantReal: P + "/abs/inside.txt", inRoot: true},
		{name: "E51_parent_escape", root: P, worktrees: []string{P}, target: "../outside.txt", wantKind: pathguard.KindOutside},
		{name: "E52_worktree_sibling", root: W + "/subdir", worktrees: []string{W}, target: W + "/shared.txt", wantRel: "../shared.txt", wantReal: W + "/shared.txt", inRoot: false},
		{name: "E53_worktree_slash_ignored", root: P, worktrees: []string{"/"}, target: "/etc/passwd", wantKind: pathguard.KindOutside},
		{name: "E54_missing_dirs", root: P, target: "new/deep/x.txt", wantRel: "new/deep/x.txt", wantReal: P + "/new/deep/x.txt", inRoot: true},
		{name: "E55_symlinked_dir_outside", root: P, target: "link/x.txt", wantKind: pathguard.KindOutside},
		{name: "E55_relative_symlink_outside", root: P, target: "rel/secret.txt", wantKind: pathguard.KindOutside},
		{name: "E56_root_through_symlink", root: filepath.Join(tmp, "rootlink"), target: filepath.Join(tmp, "rootlink", "a/b.txt"), wantRel: "a/b.txt", wantReal: P + "/a/b.txt", inRoot: true},
		{name: "E58_delete_outside", root: P, target: out + "/secret.txt", wantKind: pathguard.KindOutside},
		{name: "E60_dotdot_name_inside", root: P, target: "..cache/x", wantRel: "..cache/x", wantReal: P + "/..cache/x", inRoot: true},
		{name: "E60_prefix_sibling", root: P, target: P + "x/a", wantKind: pathguard.KindOutside},
		{name: "E64_dangling_symlink_outside", root: P, target: "dangling", wantKind: pathguard.KindOutside},
		{name: "E65_absolute_symlink_inside", root: P, target: "abslink/n.txt", wantRel: "abslink/n.txt", wantReal: P + "/real/n.txt", inRoot: true},
		{name: "E65_relative_symlink_dotdot_inside", root: P, target: "relin/n.txt", wantRel: "relin/n.txt", wantReal: P + "/real/n.txt", inRoot: true},
		{name: "E66_out_and_back", root: P, target: "out/back/f", wantRel: "out/back/f", wantReal: P + "/d/f", inRoot: true},
		{name: "E67_symlink_loop", root: P, target: "loopa/x", wantKind: pathguard.KindResolve},
		{name: "E68_root_itself", root: P, target: P, wantRel: ".", wantReal: P, inRoot: true},
		{name: "E68_root_dot", root: P, target: ".", wantRel: ".", wantReal: P, inRoot: true},
		{name: "E69_under_regular_file", root: P, target: "f.txt/child", wantRel: "f.txt/child", wantReal: P + "/f.txt/child", inRoot: true},
		{name: "E70_nul_byte", root: P, target: "a\x00b", wantKind: pathguard.KindResolve},
		{name: "E71_normalised_to_parent", root: P, target: "a/../../x", wantKind: pathguard.KindOutside},
		{name: "E72_root_slash", root: "/", target: "/etc/passwd", wantRel: "etc/passwd", wantReal: "/etc/passwd", inRoot: true},
		{name: "E73_root_missing", root: filepath.Join(tmp, "nope"), target: "x", wantKind: pathguard.KindResolve},
		{name: "E75_worktree_twice", root: W + "/subdir", worktrees: []string{W, W + "/", W}, target: W + "/shared.txt", wantRel: "../shared.txt", wantReal: W + "/shared.txt"},
		{name: "empty_target", root: P, target: "", wantKind: pathguard.KindResolve},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := pathguard.NewContainment(tc.root, pathguard.WithWorktrees(tc.worktrees...),
				pathguard.WithPathFlavor(pathguard.POSIX("/")), pathguard.WithCaseFold(false))
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Check(tc.target)
			if k := kindOf(t, err); k != tc.wantKind {
				t.Fatalf("Check(%q) kind = %v (err %v), want %v", tc.target, k, err, tc.wantKind)
			}
			if tc.wantKind != 0 {
				if !errors.Is(err, kindSentinel(tc.wantKind)) {
					t.Errorf("errors.Is(err, sentinel of %v) = false", tc.wantKind)
				}
				return
			}
			if got.Rel != tc.wantRel || got.Real != tc.wantReal || got.InRoot != tc.inRoot {
				t.Errorf("Check(%q) = Rel %q Real %q InRoot %v; want %q %q %v", tc.target, got.Rel, got.Real, got.InRoot, tc.wantRel, tc.wantReal, tc.inRoot)
			}
			if got.Raw != tc.target {
				t.Errorf("Raw = %q", got.Raw)
			}
		})
	}
}

func kindSentinel(k pathguard.Kind) error {
	switch k {
	case pathguard.KindMissing:
		return pathguard.ErrMissing
	case pathguard.KindNotDirectory:
		return pathguard.ErrNotDirectory
	case pathguard.KindOutside:
		return pathguard.ErrOutside
	}
	return pathguard.ErrResolve
}

func TestContainmentMessages(t *testing.T) {
	posixOnDisk(t)
	tmp := realTempDir(t)
	P := filepath.Join(tmp, "proj")
	mkTree(t, tmp, "proj/", "proj/l -> /etc/shadow-pathguard")
	c, err := pathguard.NewContainment(P, pathguard.WithPathFlavor(pathguard.POSIX("/")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Check("l")
	want := "path is outside the workspace root and worktrees: l (resolves to /etc/shadow-pathguard)"
	if err == nil || err.Error() != want {
		t.Errorf("message = %v\nwant %s", err, want)
	}
	_, err = c.Check("a\x00")
	if err == nil || err.Error() != "cannot resolve path a\x00: path contains a NUL byte" {
		t.Errorf("resolve message = %v", err)
	}
}

// TestContainmentCheckAll covers E57, E59 and E74.
func TestContainmentCheckAll(t *testing.T) {
	posixOnDisk(t)
	tmp := realTempDir(t)
	P := filepath.Join(tmp, "proj")
	mkTree(t, tmp, "proj/src.txt", "proj/la -> lb", "proj/lb -> la")
	c, err := pathguard.NewContainment(P, pathguard.WithPathFlavor(pathguard.POSIX("/")))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		targets   []string
		wantKind  pathguard.Kind
		wantPaths []string
	}{
		{name: "E57_move_destination_outside", targets: []string{"src.txt", "../moved.txt"}, wantKind: pathguard.KindOutside, wantPaths: []string{"../moved.txt"}},
		{name: "E59_mixed_list", targets: []string{"/etc/x", "ok.txt"}, wantKind: pathguard.KindOutside, wantPaths: []string{"/etc/x"}},
		{name: "E74_resolve_before_outside", targets: []string{"/etc/x", "la/f"}, wantKind: pathguard.KindResolve, wantPaths: []string{"la/f", "/etc/x"}},
		{name: "all_inside", targets: []string{"a", "b/c"}},
		{name: "empty_list", targets: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := c.CheckAll(tc.targets...)
			if len(res) != len(tc.targets) {
				t.Fatalf("got %d results for %d targets", len(res), len(tc.targets))
			}
			for i, r := range res {
				if r.Raw != tc.targets[i] {
					t.Errorf("result %d Raw = %q, want %q", i, r.Raw, tc.targets[i])
				}
			}
			if k := kindOf(t, err); k != tc.wantKind {
				t.Fatalf("kind = %v (%v), want %v", k, err, tc.wantKind)
			}
			if err != nil {
				var pe *pathguard.Error
				errors.As(err, &pe)
				if !slices.Equal(pe.Paths, tc.wantPaths) {
					t.Errorf("Paths = %q, want %q", pe.Paths, tc.wantPaths)
				}
			}
		})
	}
}

// TestContainmentFake runs the cases that need a fake resolver: Windows flavour on any
// OS (E61, E62), permission errors (E63).
func TestContainmentFake(t *testing.T) {
	win := pathguard.Windows(`C:\proc`, nil)
	posix := pathguard.POSIX("/")
	winFS := newFakeFS(win, true, map[string]fakeNode{
		`D:\`: {dir: true}, `D:\ws`: {dir: true}, `D:\ws\File.txt`: {}, `E:\`: {dir: true},
		`D:\ws\jump`: {link: `E:\x`}, `D:\ws\rooted`: {link: `\ws\File.txt`},
	})
	posixFS := newFakeFS(posix, false, map[string]fakeNode{
		"/": {dir: true}, "/ws": {dir: true}, "/ws/x": {dir: true},
		"/ws/locked": {err: syscall.EACCES}, "/ws/io": {err: syscall.EIO},
	})
	tests := []struct {
		name     string
		flavor   pathguard.Flavor
		res      pathguard.Resolver
		root     string
		opts     []pathguard.ContainOption
		target   string
		wantKind pathguard.Kind
		wantReal string
	}{
		{name: "E61_windows_other_drive", flavor: win, res: winFS, root: `D:\ws`, target: `E:\x`, wantKind: pathguard.KindOutside},
		{name: "E61_windows_link_to_other_drive", flavor: win, res: winFS, root: `D:\ws`, target: `jump\y`, wantKind: pathguard.KindOutside},
		{name: "E62_windows_case_folded", flavor: win, res: winFS, root: `D:\ws`, target: `d:\WS\File.txt`, wantReal: `D:\ws\File.txt`},
		{name: "E62_windows_fold_cannot_be_disabled", flavor: win, res: winFS, root: `D:\ws`, opts: []pathguard.ContainOption{pathguard.WithCaseFold(false)}, target: `d:\WS\a`, wantReal: `D:\ws\a`},
		{name: "E62_posix_fold_off", flavor: posix, res: posixFS, root: "/ws", opts: []pathguard.ContainOption{pathguard.WithCaseFold(false)}, target: "/WS/x", wantKind: pathguard.KindOutside},
		// C6': folding on a case-sensitive volume where /WS does not exist: outside.
		{name: "E62_posix_fold_on_case_sensitive_volume", flavor: posix, res: posixFS, root: "/ws", opts: []pathguard.ContainOption{pathguard.WithCaseFold(true)}, target: "/WS/x", wantKind: pathguard.KindOutside},
		{name: "E63_permission_denied_fails_closed", flavor: posix, res: posixFS, root: "/ws", target: "locked/x", wantKind: pathguard.KindResolve},
		{name: "E63_io_error_fails_closed", flavor: posix, res: posixFS, root: "/ws", target: "io", wantKind: pathguard.KindResolve},
		{name: "windows_rooted_relative", flavor: win, res: winFS, root: `D:\ws`, target: `\ws\new.txt`, wantReal: `D:\ws\new.txt`},
		{name: "windows_rooted_link_target", flavor: win, res: winFS, root: `D:\ws`, target: `rooted`, wantReal: `D:\ws\File.txt`},
		{name: "windows_slashes", flavor: win, res: winFS, root: `D:\ws`, target: `D:/ws/a/b`, wantReal: `D:\ws\a\b`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := append([]pathguard.ContainOption{pathguard.WithPathFlavor(tc.flavor), pathguard.WithResolver(tc.res)}, tc.opts...)
			c, err := pathguard.NewContainment(tc.root, opts...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Check(tc.target)
			if k := kindOf(t, err); k != tc.wantKind {
				t.Fatalf("Check(%q) kind = %v (%v), want %v", tc.target, k, err, tc.wantKind)
			}
			if tc.wantKind == pathguard.KindResolve && !errors.Is(err, fs.ErrPermission) && !errors.Is(err, syscall.EIO) {
				t.Errorf("cause not wrapped: %v", err)
			}
			if tc.wantKind == 0 && got.Real != tc.wantReal {
				t.Errorf("Real = %q, want %q", got.Real, tc.wantReal)
			}
		})
	}
}

// TestNewContainmentErrors covers C1 and E73 (constructor side), E75 and the ignored roots.
func TestNewContainmentErrors(t *testing.T) {
	win := pathguard.Windows(`C:\`, nil)
	posix := pathguard.POSIX("/")
	tests := []struct {
		name      string
		flavor    pathguard.Flavor
		root      string
		worktrees []string
		wantErr   bool
		wantBases []string
	}{
		{name: "E73_relative_root", flavor: posix, root: "proj", wantErr: true},
		{name: "nul_root", flavor: posix, root: "/a\x00", wantErr: true},
		{name: "relative_worktree", flavor: posix, root: "/ws", worktrees: []string{"wt"}, wantErr: true},
		{name: "windows_drive_relative_root", flavor: win, root: `C:ws`, wantErr: true},
		{name: "E75_duplicates_and_root", flavor: posix, root: "/ws/", worktrees: []string{"/ws", "/wt", "/wt/", "/wt/./"}, wantBases: []string{"/ws", "/wt"}},
		{name: "E53_volume_roots_ignored", flavor: posix, root: "/ws", worktrees: []string{"/", "//"}, wantBases: []string{"/ws"}},
		{name: "windows_roots_ignored", flavor: win, root: `D:\ws`, worktrees: []string{`C:\`, `\\srv\share`, `d:\WS`, `E:\wt`}, wantBases: []string{`D:\ws`, `E:\wt`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := pathguard.NewContainment(tc.root, pathguard.WithPathFlavor(tc.flavor), pathguard.WithWorktrees(tc.worktrees...))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if err != nil {
				if kindOf(t, err) != pathguard.KindResolve {
					t.Errorf("kind = %v", kindOf(t, err))
				}
				return
			}
			if got := c.Bases(); !slices.Equal(got, tc.wantBases) {
				t.Errorf("Bases = %q, want %q", got, tc.wantBases)
			}
			if c.Root() != tc.wantBases[0] {
				t.Errorf("Root = %q", c.Root())
			}
		})
	}
}

// TestContainmentConcurrent checks C10: concurrent first use computes the bases once and
// every goroutine sees the same verdicts (run with -race).
func TestContainmentConcurrent(t *testing.T) {
	posixOnDisk(t)
	tmp := realTempDir(t)
	P := filepath.Join(tmp, "proj")
	mkTree(t, tmp, "proj/a/")
	c, err := pathguard.NewContainment(P, pathguard.WithPathFlavor(pathguard.POSIX("/")))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Go(func() {
			if _, err := c.Check("a/x"); err != nil {
				errs[i] = err
				return
			}
			if _, err := c.Check("../x"); !errors.Is(err, pathguard.ErrOutside) {
				errs[i] = errors.New("escape not refused")
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// TestContainmentJunction drives the reparse-point branch through the fake seam (Wine has
// no junctions): a junction, which Go 1.23+ reports as ModeIrregular and which
// filepath.EvalSymlinks no longer follows, is followed like a symlink through Readlink; a
// reparse point of another kind opens in place; a Readlink failure other than "not a link"
// fails closed. The same walk serves both flavours, so the POSIX rows show the seam does
// not depend on the OS.
func TestContainmentJunction(t *testing.T) {
	win := pathguard.Windows(`C:\proc`, nil)
	wres := newFakeFS(win, true, map[string]fakeNode{
		`D:\`: {dir: true}, `D:\ws`: {dir: true}, `D:\ws\sub`: {dir: true}, `E:\`: {dir: true}, `E:\out`: {dir: true},
		`D:\ws\j`:       {junction: `E:\out`},
		`D:\ws\jin`:     {junction: `D:\ws\sub`},
		`D:\ws\jup`:     {junction: `D:\`},
		`D:\ws\jvol`:    {junction: `\\?\Volume{0a1b2c3d-0000-0000-0000-000000000000}\`},
		`D:\ws\jverb`:   {junction: `\\?\E:\out`},
		`D:\ws\loop1`:   {junction: `D:\ws\loop2`},
		`D:\ws\loop2`:   {junction: `D:\ws\loop1`},
		`D:\ws\jdangle`: {junction: `E:\gone`},
		`D:\ws\cloud`:   {reparse: true},
		`D:\ws\denied`:  {readlinkErr: syscall.EACCES},
		`D:\ws\sub\lnk`: {link: `..\j`},
		`D:\link`:       {junction: `D:\real`},
		`D:\real`:       {dir: true}, `D:\real\ws`: {dir: true},
	})
	posix := pathguard.POSIX("/")
	pres := newFakeFS(posix, false, map[string]fakeNode{
		"/": {dir: true}, "/ws": {dir: true}, "/ws/sub": {dir: true}, "/out": {dir: true},
		"/ws/j": {junction: "/out"}, "/ws/jin": {junction: "/ws/sub"}, "/ws/cloud": {reparse: true},
	})
	tests := []struct {
		name     string
		flavor   pathguard.Flavor
		res      pathguard.Resolver
		root     string
		target   string
		wantKind pathguard.Kind
		wantReal string
		wantBase string
	}{
		{name: "junction_out", flavor: win, res: wres, root: `D:\ws`, target: `j\x`, wantKind: pathguard.KindOutside, wantReal: `E:\out\x`},
		{name: "junction_itself_out", flavor: win, res: wres, root: `D:\ws`, target: `j`, wantKind: pathguard.KindOutside, wantReal: `E:\out`},
		{name: "junction_in", flavor: win, res: wres, root: `D:\ws`, target: `jin\x`, wantReal: `D:\ws\sub\x`, wantBase: `D:\ws`},
		{name: "junction_dotdot_after", flavor: win, res: wres, root: `D:\ws`, target: `jin\..\x`, wantReal: `D:\ws\x`, wantBase: `D:\ws`},
		{name: "junction_up_to_volume_root", flavor: win, res: wres, root: `D:\ws`, target: `jup\ws\sub\x`, wantReal: `D:\ws\sub\x`, wantBase: `D:\ws`},
		{name: "junction_up_then_out", flavor: win, res: wres, root: `D:\ws`, target: `jup\real\x`, wantKind: pathguard.KindOutside, wantReal: `D:\real\x`},
		{name: "junction_to_volume_guid", flavor: win, res: wres, root: `D:\ws`, target: `jvol\x`, wantKind: pathguard.KindOutside},
		{name: "junction_verbatim_target", flavor: win, res: wres, root: `D:\ws`, target: `jverb\x`, wantKind: pathguard.KindOutside, wantReal: `E:\out\x`},
		{name: "junction_dangling_out", flavor: win, res: wres, root: `D:\ws`, target: `jdangle\new.txt`, wantKind: pathguard.KindOutside, wantReal: `E:\gone\new.txt`},
		{name: "junction_loop", flavor: win, res: wres, root: `D:\ws`, target: `loop1\x`, wantKind: pathguard.KindResolve},
		{name: "symlink_to_junction_out", flavor: win, res: wres, root: `D:\ws`, target: `sub\lnk\x`, wantKind: pathguard.KindOutside, wantReal: `E:\out\x`},
		{name: "other_reparse_point_in_place", flavor: win, res: wres, root: `D:\ws`, target: `cloud\x`, wantReal: `D:\ws\cloud\x`, wantBase: `D:\ws`},
		{name: "reparse_readlink_denied", flavor: win, res: wres, root: `D:\ws`, target: `denied\x`, wantKind: pathguard.KindResolve},
		{name: "root_below_junction", flavor: win, res: wres, root: `D:\link\ws`, target: `x`, wantReal: `D:\real\ws\x`, wantBase: `D:\link\ws`},
		{name: "root_below_junction_absolute_real", flavor: win, res: wres, root: `D:\link\ws`, target: `D:\real\ws\x`, wantKind: pathguard.KindOutside},
		{name: "posix_junction_out", flavor: posix, res: pres, root: "/ws", target: "j/x", wantKind: pathguard.KindOutside, wantReal: "/out/x"},
		{name: "posix_junction_in", flavor: posix, res: pres, root: "/ws", target: "jin/x", wantReal: "/ws/sub/x", wantBase: "/ws"},
		{name: "posix_reparse_in_place", flavor: posix, res: pres, root: "/ws", target: "cloud/x", wantReal: "/ws/cloud/x", wantBase: "/ws"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := pathguard.NewContainment(tc.root, pathguard.WithPathFlavor(tc.flavor), pathguard.WithResolver(tc.res))
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Check(tc.target)
			if k := kindOf(t, err); k != tc.wantKind {
				t.Fatalf("Check(%q) = %+v, kind %v (%v), want %v", tc.target, got, k, err, tc.wantKind)
			}
			if tc.wantReal != "" && got.Real != tc.wantReal {
				t.Errorf("Real = %q, want %q", got.Real, tc.wantReal)
			}
			if got.Base != tc.wantBase {
				t.Errorf("Base = %q, want %q", got.Base, tc.wantBase)
			}
		})
	}
}

// TestContainmentShortNameHint: the 8.3 and long spellings of one directory are different
// paths to containment (refusing is the safe answer), and the refusal says so and what to
// do; an escape with no short-name-like component carries no such hint.
func TestContainmentShortNameHint(t *testing.T) {
	win := pathguard.Windows(`C:\proc`, nil)
	res := newFakeFS(win, true, map[string]fakeNode{
		`C:\`: {dir: true}, `C:\Program Files`: {dir: true}, `C:\Program Files\ws`: {dir: true},
		`C:\PROGRA~1`: {dir: true}, `C:\PROGRA~1\ws`: {dir: true}, `C:\other`: {dir: true},
	})
	tests := []struct {
		name, root, target string
		wantHint           bool
	}{
		{name: "short_target_long_root", root: `C:\Program Files\ws`, target: `C:\PROGRA~1\ws\x`, wantHint: true},
		{name: "long_target_short_root", root: `C:\PROGRA~1\ws`, target: `C:\Program Files\ws\x`, wantHint: true},
		{name: "short_with_extension", root: `C:\Program Files\ws`, target: `C:\PROGRA~1.TXT\x`, wantHint: true},
		{name: "plain_escape", root: `C:\Program Files\ws`, target: `C:\other\x`},
		{name: "tilde_not_short", root: `C:\Program Files\ws`, target: `C:\other\~backup\x`},
		{name: "long_stem_with_tilde", root: `C:\Program Files\ws`, target: `C:\other\verylongname~1\x`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := pathguard.NewContainment(tc.root, pathguard.WithPathFlavor(win), pathguard.WithResolver(res))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Check(tc.target)
			if !errors.Is(err, pathguard.ErrOutside) {
				t.Fatalf("Check(%q) = %v, want ErrOutside", tc.target, err)
			}
			if got := strings.Contains(err.Error(), "8.3 short name"); got != tc.wantHint {
				t.Errorf("hint = %v, want %v: %v", got, tc.wantHint, err)
			}
		})
	}
}
