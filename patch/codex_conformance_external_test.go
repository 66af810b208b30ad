package patch_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

const scenarioDir = "testdata/codex-apply-patch"

// scenarioTree is a fixture tree reduced to what the scenarios compare: kind and bytes.
type treeNode struct {
	Dir  bool
	Data string
}

func simplify(t map[string]wfs.Entry) map[string]treeNode {
	out := map[string]treeNode{}
	for k, e := range t {
		out[k] = treeNode{Dir: e.Dir, Data: string(e.Data)}
	}
	return out
}

// readFixture returns the tree under dir ("" or missing = empty).
func readFixture(t *testing.T, dir string) map[string]treeNode {
	t.Helper()
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return map[string]treeNode{}
	}
	tr, err := wfs.ReadTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	return simplify(tr)
}

// backend is one FS under test with a root holding a copy of a fixture's input.
type backend struct {
	name  string
	setup func(t *testing.T, input string) (wfs.FS, string, func() map[string]treeNode)
}

var backends = []backend{
	{name: "memfs", setup: func(t *testing.T, input string) (wfs.FS, string, func() map[string]treeNode) {
		m := wfs.NewMemFS()
		root := testenv.Abs("/w/root")
		if err := m.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		for rel, n := range readFixture(t, input) {
			p := filepath.Join(root, filepath.FromSlash(rel))
			var err error
			if n.Dir {
				err = m.MkdirAll(p, 0o755)
			} else {
				err = m.MkdirAll(filepath.Dir(p), 0o755)
				if err == nil {
					err = m.WriteFile(p, []byte(n.Data), 0o644)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		return m, root, func() map[string]treeNode { return simplify(m.TreeUnder(root)) }
	}},
	{name: "osfs", setup: func(t *testing.T, input string) (wfs.FS, string, func() map[string]treeNode) {
		root := filepath.Join(t.TempDir(), "root")
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(input); err == nil {
			if err := os.CopyFS(root, os.DirFS(input)); err != nil {
				t.Fatal(err)
			}
			// Fixture copies may be read-only; the applier must be able to replace them.
			_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err == nil {
					mode := os.FileMode(0o644)
					if d.IsDir() {
						mode = 0o755
					}
					err = os.Chmod(p, mode)
				}
				return err
			})
		}
		root, err := filepath.EvalSymlinks(root)
		if err != nil {
			t.Fatal(err)
		}
		o, err := wfs.NewOSFS(root)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { o.Close() })
		return o, root, func() map[string]treeNode {
			tr, err := wfs.ReadTree(root)
			if err != nil {
				t.Fatal(err)
			}
			return simplify(tr)
		}
	}},
}

// divergence is the documented default-mode outcome of a scenario that differs from Codex.
type divergence struct {
	tree func(input map[string]treeNode) map[string]treeNode
	kind patch.Kind
	msg  string
}

var defaultDivergences = map[string]divergence{
	"010_move_overwrites_existing_destination": {
		tree: func(in map[string]treeNode) map[string]treeNode { return in },
		kind: patch.KindExists, msg: "Move destination already exists: renamed/dir/name.txt",
	},
	"011_add_overwrites_existing_file": {
		tree: func(in map[string]treeNode) map[string]treeNode { return in },
		kind: patch.KindExists, msg: "Add File target already exists: duplicate.txt",
	},
	"014_update_file_appends_trailing_newline": {
		tree: func(map[string]treeNode) map[string]treeNode {
			return map[string]treeNode{"no_newline.txt": {Data: "first line\nsecond line"}}
		},
	},
	"015_failure_after_partial_success_leaves_changes": {
		tree: func(map[string]treeNode) map[string]treeNode { return map[string]treeNode{} },
		kind: patch.KindMissingFile, msg: "Failed to read file to update missing.txt: file does not exist",
	},
}

// rejectKinds are the kinds of the rejecting scenarios, in both modes.
var rejectKinds = map[string]patch.Kind{
	"005_rejects_empty_patch":                          patch.KindEmpty,
	"006_rejects_missing_context":                      patch.KindNotFound,
	"007_rejects_missing_file_delete":                  patch.KindMissingFile,
	"008_rejects_empty_update_hunk":                    patch.KindInvalid,
	"009_requires_existing_file_for_update":            patch.KindMissingFile,
	"012_delete_directory_fails":                       patch.KindMissingFile,
	"013_rejects_invalid_hunk_header":                  patch.KindInvalid,
	"015_failure_after_partial_success_leaves_changes": patch.KindMissingFile,
}

func scenarios(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(scenarioDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// TestCodexScenarios runs the 23 Codex fixture directories in Codex-compatibility mode (all
// must reach expected/) and in the default mode (all but the four documented divergences must
// reach expected/; those must reach the documented tree and error), on MemFS and on OSFS.
func TestCodexScenarios(t *testing.T) {
	names := scenarios(t)
	if len(names) != 23 {
		t.Fatalf("found %d scenario directories, want 23", len(names))
	}
	modes := []struct {
		name string
		opts []patch.Option
	}{
		{name: "default"},
		{name: "compat", opts: []patch.Option{patch.WithCodexCompat()}},
	}
	for _, name := range names {
		dir := filepath.Join(scenarioDir, name)
		text, err := os.ReadFile(filepath.Join(dir, "patch.txt"))
		if err != nil {
			t.Fatal(err)
		}
		input := readFixture(t, filepath.Join(dir, "input"))
		expected := readFixture(t, filepath.Join(dir, "expected"))
		for _, mode := range modes {
			for _, be := range backends {
				t.Run(name+"/"+mode.name+"/"+be.name, func(t *testing.T) {
					fsys, root, tree := be.setup(t, filepath.Join(dir, "input"))
					a, err := patch.New(fsys, root, mode.opts...)
					if err != nil {
						t.Fatal(err)
					}
					_, applyErr := a.Apply(context.Background(), string(text))
					want, wantKind, wantMsg := expected, patch.Kind(0), ""
					if k, ok := rejectKinds[name]; ok {
						wantKind = k
					}
					if d, ok := defaultDivergences[name]; ok && mode.name == "default" {
						want, wantKind, wantMsg = d.tree(input), d.kind, d.msg
					}
					if diff := cmp.Diff(want, tree()); diff != "" {
						t.Errorf("tree after Apply (-want +got):\n%s\nerror: %v", diff, applyErr)
					}
					if wantKind == 0 {
						if applyErr != nil {
							t.Fatalf("Apply: unexpected error %v", applyErr)
						}
						return
					}
					var pe *patch.Error
					if !errors.As(applyErr, &pe) || pe.Kind != wantKind {
						t.Fatalf("Apply error = %v, want kind %v", applyErr, wantKind)
					}
					if wantMsg != "" && !strings.Contains(pe.Msg, wantMsg) {
						t.Errorf("message %q does not contain %q", pe.Msg, wantMsg)
					}
					if name == "012_delete_directory_fails" && !strings.Contains(pe.Msg, "is a directory") {
						t.Errorf("message %q does not say the target is a directory", pe.Msg)
					}
				})
			}
		}
	}
}
