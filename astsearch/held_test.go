package astsearch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/wfs"
)

// TestHeldApplyInputs holds trees that change between Rewrite and Apply on a real disk.
func TestHeldApplyInputs(t *testing.T) {
	t.Run("target_became_link_to_same_content_written_through", func(t *testing.T) {
		// A symbolic link is followed to its target inside the tree and never replaced:
		// b.js, swapped after planning for a link to a file of the planned content, is
		// written through to that file; the link stays a link.
		testenv.Symlinks(t)
		dir := t.TempDir()
		files := map[string]string{"a.js": srcUtil, "b.js": srcThree}
		for n, d := range files {
			os.WriteFile(filepath.Join(dir, n), []byte(d), 0o644)
		}
		plan, err := Rewrite(context.Background(), os.DirFS(dir), Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend}, "logger.info($A)")
		if err != nil || len(plan.Files) != 2 {
			t.Fatalf("plan: %v, %d files", err, len(plan.Files))
		}
		os.WriteFile(filepath.Join(dir, "copy.txt"), []byte(srcThree), 0o644)
		os.Remove(filepath.Join(dir, "b.js"))
		if err := os.Symlink("copy.txt", filepath.Join(dir, "b.js")); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
		w, err := wfs.NewOSFS(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if _, err := plan.Apply(context.Background(), w, dir); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "copy.txt")); string(got) != string(plan.Files[1].Content) {
			t.Errorf("copy.txt = %q, want the rewrite", got)
		}
		if target, err := os.Readlink(filepath.Join(dir, "b.js")); err != nil || target != "copy.txt" {
			t.Errorf("b.js is no longer the link: %q, %v", target, err)
		}
	})
	t.Run("target_became_link_out_of_the_tree_refused", func(t *testing.T) {
		testenv.Symlinks(t)
		dir, out := t.TempDir(), t.TempDir()
		files := map[string]string{"a.js": srcUtil, "b.js": srcThree}
		for n, d := range files {
			os.WriteFile(filepath.Join(dir, n), []byte(d), 0o644)
		}
		plan, err := Rewrite(context.Background(), os.DirFS(dir), Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend}, "logger.info($A)")
		if err != nil || len(plan.Files) != 2 {
			t.Fatalf("plan: %v, %d files", err, len(plan.Files))
		}
		os.WriteFile(filepath.Join(out, "b.js"), []byte(srcThree), 0o644)
		os.Remove(filepath.Join(dir, "b.js"))
		if err := os.Symlink(filepath.Join(out, "b.js"), filepath.Join(dir, "b.js")); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
		w, err := wfs.NewOSFS(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if applied, err := plan.Apply(context.Background(), w, dir); !errors.Is(err, ErrBlocked) {
			t.Errorf("Apply = %+v, %v; want ErrBlocked", applied, err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "a.js")); string(got) != srcUtil {
			t.Errorf("a.js written despite the refusal: %q", got)
		}
		if got, _ := os.ReadFile(filepath.Join(out, "b.js")); string(got) != srcThree {
			t.Errorf("the file outside the tree was written: %q", got)
		}
	})
}

// TestHeldTimeoutWithCap: when the timeout cut the search short, TotalMatches is not the
// whole count, so the reason must say "timeout" even if a match cap was also hit.
func TestHeldTimeoutWithCap(t *testing.T) {
	fsys := mapFS(map[string]string{"a.js": srcThree, "b.js": srcThree, "c.js": srcThree, "d.js": srcThree, "e.js": srcThree})
	tests := []struct {
		name       string
		maxMatches int
		want       string
	}{
		{name: "cap_and_timeout", maxMatches: 1, want: "timeout"},
		{name: "timeout_only", maxMatches: 100, want: "timeout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Search(context.Background(), fsys, Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend, Threads: 1,
				MaxMatches: tc.maxMatches, Timeout: 50 * time.Millisecond,
				Progress: func(done, total int) {
					if done == 1 {
						time.Sleep(200 * time.Millisecond) // the caller is slow: the timeout passes
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			if r.TruncatedReason != tc.want {
				t.Errorf("reason %q (total %d of 15), want %q", r.TruncatedReason, r.TotalMatches, tc.want)
			}
		})
	}
}

// TestHeldOverlappingPaths: a file reached through two requested paths is planned once,
// and the plan applies.
func TestHeldOverlappingPaths(t *testing.T) {
	files := map[string]string{"a.js": srcUtil, "s/b.js": srcThree}
	tests := []struct {
		name  string
		paths []string
		files int
	}{
		{name: "same_file_twice", paths: []string{"a.js", "a.js"}, files: 1},
		{name: "dir_and_file_inside", paths: []string{".", "s/b.js"}, files: 2},
		{name: "dot_slash_variant", paths: []string{"s", "./s"}, files: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := Rewrite(context.Background(), mapFS(files), Request{Pattern: "console.log($A)", Lang: JavaScript, Backend: fixtureBackend, Paths: tc.paths}, "logger.info($A)")
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Files) != tc.files {
				t.Errorf("planned %d files, want %d", len(plan.Files), tc.files)
			}
			mem := newMemRoot(t, files)
			if _, err := plan.Apply(context.Background(), mem.FS, mem.Root); err != nil {
				t.Errorf("apply: %v", err)
			}
		})
	}
}
