package wfs_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/harnesskit/harnesskit/wfs"
)

// recordingOS is an OSFS that logs its mutating calls and its syncs the way MemFS does
// ([wfs.MemFS.Calls]), so the order of a commit's durability steps can be checked on a real
// directory too. Embedding keeps every extension (ReadDirFS, LinkFS, LockFS, MetaFS).
type recordingOS struct {
	*wfs.OSFS
	mu    sync.Mutex
	calls []wfs.Call
}

func (r *recordingOS) log(op, name, name2 string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, wfs.Call{Op: op, Name: name, Name2: name2})
}

func (r *recordingOS) Calls() []wfs.Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

func (r *recordingOS) OpenFile(name string, flag int, perm os.FileMode) (wfs.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 {
		r.log("open", name, "")
	}
	f, err := r.OSFS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &recordingFile{File: f, r: r, name: name}, nil
}

func (r *recordingOS) Rename(oldname, newname string) error {
	r.log("rename", oldname, newname)
	return r.OSFS.Rename(oldname, newname)
}

func (r *recordingOS) Link(oldname, newname string) error {
	r.log("link", oldname, newname)
	return r.OSFS.Link(oldname, newname)
}

func (r *recordingOS) Remove(name string) error {
	r.log("remove", name, "")
	return r.OSFS.Remove(name)
}

func (r *recordingOS) Mkdir(name string, perm os.FileMode) error {
	r.log("mkdir", name, "")
	return r.OSFS.Mkdir(name, perm)
}

func (r *recordingOS) Chmod(name string, mode os.FileMode) error {
	r.log("chmod", name, "")
	return r.OSFS.Chmod(name, mode)
}

type recordingFile struct {
	wfs.File
	r    *recordingOS
	name string
}

func (f *recordingFile) Sync() error {
	f.r.log("sync", f.name, "")
	return f.File.Sync()
}

// orderCase is one commit whose durability steps TestTxOrderOfOperations checks. Names are
// relative to the tree's root, with slashes.
type orderCase struct {
	name   string
	tree   map[string]string
	link   [2]string // a hard link to make before the commit: {existing, new name}
	commit func(t *testing.T, fsys wfs.FS, root string)
	// What the commit must show: files switched in from a temporary (a rename or a link of
	// the temporary over or to the name), files written in place (hard-linked), names
	// deleted, directories created for new files; multi: a commit of more than one step,
	// whose staging must be durable before its first switch.
	replaced, inPlace, deleted, mkdirs []string
	multi                              bool
}

func orderCases() []orderCase {
	read := func(t *testing.T, fsys wfs.FS, root, rel string) wfs.Snapshot {
		t.Helper()
		s, err := wfs.Read(ctx, fsys, filepath.Join(root, filepath.FromSlash(rel)), wfs.DefaultMaxFileSize)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	commit := func(t *testing.T, fsys wfs.FS, root string, add func(tx *wfs.Tx)) {
		t.Helper()
		tx, err := wfs.Begin(fsys, root)
		if err != nil {
			t.Fatal(err)
		}
		add(tx)
		if _, err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	abs := func(root, rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	return []orderCase{
		{
			name: "update_create_in_new_dirs_delete",
			tree: beforeTree,
			commit: func(t *testing.T, fsys wfs.FS, root string) {
				a, c := read(t, fsys, root, "a.txt"), read(t, fsys, root, "c.txt")
				commit(t, fsys, root, func(tx *wfs.Tx) {
					tx.Write(a, []byte("A2\n"))
					tx.Write(wfs.Absent(abs(root, "new/dir/b.txt")), []byte("B\n"))
					tx.Delete(c)
				})
			},
			replaced: []string{"a.txt", "new/dir/b.txt"}, deleted: []string{"c.txt"}, mkdirs: []string{"new", "new/dir"}, multi: true,
		},
		{
			name: "one_update",
			tree: beforeTree,
			commit: func(t *testing.T, fsys wfs.FS, root string) {
				a := read(t, fsys, root, "a.txt")
				commit(t, fsys, root, func(tx *wfs.Tx) { tx.Write(a, []byte("A2\n")) })
			},
			replaced: []string{"a.txt"},
		},
		{
			name: "one_create_in_three_new_dirs",
			tree: beforeTree,
			commit: func(t *testing.T, fsys wfs.FS, root string) {
				commit(t, fsys, root, func(tx *wfs.Tx) { tx.Create(abs(root, "x/y/z/n.txt"), []byte("n\n"), 0o644) })
			},
			replaced: []string{"x/y/z/n.txt"}, mkdirs: []string{"x", "x/y", "x/y/z"},
		},
		{
			name: "one_delete",
			tree: beforeTree,
			commit: func(t *testing.T, fsys wfs.FS, root string) {
				c := read(t, fsys, root, "c.txt")
				commit(t, fsys, root, func(tx *wfs.Tx) { tx.Delete(c) })
			},
			deleted: []string{"c.txt"},
		},
		{
			name: "hard_linked_in_place_and_create_in_new_dir",
			tree: map[string]string{"a.txt": "a\n", "sub/keep.txt": "k\n"},
			link: [2]string{"a.txt", "sub/a-link.txt"},
			commit: func(t *testing.T, fsys wfs.FS, root string) {
				a := read(t, fsys, root, "a.txt")
				commit(t, fsys, root, func(tx *wfs.Tx) {
					tx.Write(a, []byte("A2\n"))
					tx.Create(abs(root, "sub/new/n.txt"), []byte("n\n"), 0o644)
				})
			},
			inPlace: []string{"a.txt"}, replaced: []string{"sub/new/n.txt"}, mkdirs: []string{"sub/new"}, multi: true,
		},
	}
}

// TestTxOrderOfOperations checks, with a recording FS (MemFS, and an OSFS on a real
// directory behind a recording wrapper), the order of every commit's durability steps: each
// new content's temporary is synced before it is switched in and its directory synced after
// the switch; a file written in place is synced after its write; a deleted name's directory
// is synced after the remove; the parent of every directory created is synced after the
// mkdir; all of it before the journal goes (the commit's end). A commit of several steps
// also has all its staging durable (temporaries, new directories, the directories holding
// them, the journal with its commit mark) before its first switch.
func TestTxOrderOfOperations(t *testing.T) {
	for _, c := range orderCases() {
		t.Run(c.name+"/MemFS", func(t *testing.T) {
			m := txTree(t, c.tree)
			if c.link[0] != "" {
				if err := m.Link(rp(c.link[0]), rp(c.link[1])); err != nil {
					t.Fatal(err)
				}
			}
			m.ResetCalls()
			c.commit(t, m, memRoot())
			checkOrder(t, c, memRoot(), m.Calls())
		})
		t.Run(c.name+"/OSFS", func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			for rel, data := range c.tree {
				p := filepath.Join(root, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if c.link[0] != "" {
				if err := os.Link(filepath.Join(root, filepath.FromSlash(c.link[0])), filepath.Join(root, filepath.FromSlash(c.link[1]))); err != nil {
					t.Skipf("no hard links here: %v", err)
				}
			}
			o, err := wfs.NewOSFS(root)
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			r := &recordingOS{OSFS: o}
			c.commit(t, r, root)
			checkOrder(t, c, root, r.Calls())
		})
	}
}

// checkOrder checks one commit's call log against what its case must show.
func checkOrder(t *testing.T, c orderCase, root string, calls []wfs.Call) {
	t.Helper()
	abs := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	journalDir := filepath.Join(root, wfs.JournalDir)
	inJournal := func(name string) bool { return name == journalDir || filepath.Dir(name) == journalDir }
	// first returns the index of the first call at or after from that pred accepts, or -1.
	first := func(from int, pred func(wfs.Call) bool) int {
		for i := max(from, 0); i < len(calls); i++ {
			if pred(calls[i]) {
				return i
			}
		}
		return -1
	}
	syncOf := func(name string) func(wfs.Call) bool {
		return func(c wfs.Call) bool { return c.Op == "sync" && c.Name == name }
	}
	// The commit ends when its journal is removed (every journal is removed at the end).
	end := first(0, func(c wfs.Call) bool { return c.Op == "remove" && strings.HasSuffix(c.Name, ".journal") })
	if end < 0 {
		t.Fatalf("the journal was never removed:\n%s", formatCalls(calls))
	}
	// The switch starts with the first call that changes a target: a temporary renamed or
	// linked to a replaced name, an open of a file written in place, a remove of a deleted
	// name.
	isSwitch := func(call wfs.Call) bool {
		for _, rel := range c.replaced {
			if (call.Op == "rename" || call.Op == "link") && call.Name2 == abs(rel) {
				return true
			}
		}
		for _, rel := range c.inPlace {
			if call.Op == "open" && call.Name == abs(rel) {
				return true
			}
		}
		for _, rel := range c.deleted {
			if call.Op == "remove" && call.Name == abs(rel) {
				return true
			}
		}
		return false
	}
	firstSwitch := first(0, isSwitch)
	if firstSwitch < 0 {
		t.Fatalf("no target was switched:\n%s", formatCalls(calls))
	}
	type step struct {
		what   string
		at     int // the step (-1: never)
		before int // must come before this index
	}
	var steps []step
	need := func(what string, at, before int) { steps = append(steps, step{what, at, before}) }

	for _, rel := range c.replaced {
		target := abs(rel)
		var temp string
		sw := first(0, func(c wfs.Call) bool {
			if (c.Op == "rename" || c.Op == "link") && c.Name2 == target && wfs.IsLeftover(filepath.Base(c.Name)) {
				temp = c.Name
				return true
			}
			return false
		})
		if sw < 0 {
			t.Errorf("%s: never switched in from a temporary:\n%s", rel, formatCalls(calls))
			continue
		}
		lastWrite := -1
		for i, c := range calls[:sw] {
			if c.Name == temp && (c.Op == "open" || c.Op == "chmod") {
				lastWrite = i
			}
		}
		syncTemp := first(lastWrite+1, syncOf(temp))
		need(rel+": sync of its temporary after its last write", syncTemp, sw)
		need(rel+": sync of its directory after the switch", first(sw+1, syncOf(filepath.Dir(target))), end)
		if c.multi {
			need(rel+": sync of its temporary's directory entry before the first switch", first(lastWrite+1, syncOf(filepath.Dir(temp))), firstSwitch)
		}
	}
	for _, rel := range c.inPlace {
		target := abs(rel)
		w := first(0, func(c wfs.Call) bool { return c.Op == "open" && c.Name == target })
		if w < 0 {
			t.Errorf("%s: never written in place:\n%s", rel, formatCalls(calls))
			continue
		}
		if i := first(0, func(c wfs.Call) bool { return (c.Op == "rename" || c.Op == "link") && c.Name2 == target }); i >= 0 {
			t.Errorf("%s: has several links but was replaced (call %d), splitting its names:\n%s", rel, i, formatCalls(calls))
		}
		need(rel+": sync of the file after its write in place", first(w+1, syncOf(target)), end)
		// What a recovery rolls forward from (the staged content) and back from (the old
		// content kept aside) is durable before the file is touched.
		staged := 0
		for i, call := range calls[:w] {
			if call.Op == "open" && filepath.Dir(call.Name) == filepath.Dir(target) &&
				strings.HasPrefix(filepath.Base(call.Name), "."+filepath.Base(target)+".hk-") && wfs.IsLeftover(filepath.Base(call.Name)) {
				staged++
				need(rel+": sync of "+filepath.Base(call.Name)+" before the write in place", first(i+1, syncOf(call.Name)), w)
			}
		}
		if staged < 2 {
			t.Errorf("%s: %d hidden copies (staged content, old content) made before the write in place, want 2", rel, staged)
		}
	}
	for _, rel := range c.deleted {
		target := abs(rel)
		rm := first(0, func(c wfs.Call) bool { return c.Op == "remove" && c.Name == target })
		if rm < 0 {
			t.Errorf("%s: never removed:\n%s", rel, formatCalls(calls))
			continue
		}
		need(rel+": sync of its directory after the remove", first(rm+1, syncOf(filepath.Dir(target))), end)
	}
	var made []string
	for i, call := range calls {
		if call.Op == "mkdir" && !inJournal(call.Name) {
			made = append(made, call.Name)
			parent := filepath.Dir(call.Name)
			before := end
			if c.multi {
				before = firstSwitch
			}
			need("new directory "+call.Name+": sync of its parent after the mkdir", first(i+1, syncOf(parent)), before)
		}
	}
	var wantMade []string
	for _, rel := range c.mkdirs {
		wantMade = append(wantMade, abs(rel))
	}
	if !slices.Equal(made, wantMade) {
		t.Errorf("directories made = %q, want %q (outermost first)", made, wantMade)
	}
	if c.multi {
		// The commit mark: a sync of the journal after the last staging call.
		lastStage := -1
		for i, call := range calls[:firstSwitch] {
			if !inJournal(call.Name) && call.Op != "sync" {
				lastStage = i
			}
		}
		need("the journal's commit mark synced after the staging", first(lastStage+1, func(c wfs.Call) bool {
			return c.Op == "sync" && filepath.Dir(c.Name) == journalDir
		}), firstSwitch)
	}
	for _, s := range steps {
		if s.at < 0 || s.at >= s.before {
			t.Errorf("%s: at call %d, want it before call %d", s.what, s.at, s.before)
		}
	}
	if t.Failed() {
		t.Logf("calls:\n%s", formatCalls(calls))
	}
}

func formatCalls(calls []wfs.Call) string {
	var b strings.Builder
	for i, c := range calls {
		b.WriteString(strings.TrimRight(strings.Join([]string{strconv.Itoa(i), c.Op, c.Name, c.Name2}, " "), " "))
		b.WriteByte('\n')
	}
	return b.String()
}
