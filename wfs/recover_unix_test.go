//go:build unix

package wfs_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/harnesskit/harnesskit/wfs"
)

// TestRecoverRefusesForeignJournals: a journal recovery did not write itself — a .hkwfs
// directory checked out of a repository (mode 0755, files 0644), or a journal whose
// temporaries are not temporary names of its targets — is never acted on: Recover (and so
// patch.Open and every commit) refuses it and changes nothing. Without this a cloned
// repository could have recovery link a file of its own into .git/hooks.
func TestRecoverRefusesForeignJournals(t *testing.T) {
	const hooks = ".git/hooks/pre-commit"
	tests := []struct {
		name          string
		dirMode, mode os.FileMode
		temp          string // relative; the op's temporary
		scratch       string // relative; a scratch record
	}{
		{name: "checked_out_modes", dirMode: 0o755, mode: 0o644, temp: ".git/hooks/.pre-commit.hk-0000000000000001.tmp"},
		{name: "temporary_not_named_after_its_target", dirMode: 0o700, mode: 0o600, temp: "payload.sh"},
		{name: "scratch_record_naming_a_real_file", dirMode: 0o700, mode: 0o600, temp: ".git/hooks/.pre-commit.hk-0000000000000001.tmp", scratch: "important.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(os.MkdirAll(filepath.Join(dir, ".git/hooks"), 0o755))
			must(os.WriteFile(filepath.Join(dir, "payload.sh"), []byte("#!/bin/sh\necho owned\n"), 0o755))
			must(os.WriteFile(filepath.Join(dir, filepath.FromSlash(tc.temp)), []byte("#!/bin/sh\necho owned\n"), 0o755))
			must(os.WriteFile(filepath.Join(dir, "important.txt"), []byte("keep me\n"), 0o644))
			jdir := filepath.Join(dir, wfs.JournalDir)
			must(os.Mkdir(jdir, tc.dirMode))
			must(os.Chmod(jdir, tc.dirMode))
			j := `{"wfs":1,"id":"0000000000000009","pid":1,"root":"` + dir + `"}` + "\n" +
				`{"op":{"kind":"write","name":"` + filepath.Join(dir, hooks) + `","temp":"` + filepath.Join(dir, tc.temp) + `","create":true,"old":{"type":"absent"},"new":{"type":"file","size":1,"crc32c":"00"}}}` + "\n"
			if tc.scratch != "" {
				j += `{"scratch":"` + filepath.Join(dir, tc.scratch) + `"}` + "\n"
			}
			j += `{"mark":"commit"}` + "\n"
			jname := filepath.Join(jdir, "0000000000000009.journal")
			must(os.WriteFile(jname, []byte(j), tc.mode))
			must(os.Chmod(jname, tc.mode))
			o, err := wfs.NewOSFS(dir)
			must(err)
			defer o.Close()
			recs, err := wfs.Recover(ctx, o, dir)
			if err == nil || len(recs) != 0 {
				t.Fatalf("Recover = %v, %v; want a refusal", recs, err)
			}
			var we *wfs.Error
			if !errors.As(err, &we) {
				t.Fatalf("error %v is not a *wfs.Error", err)
			}
			if _, err := os.Lstat(filepath.Join(dir, hooks)); !os.IsNotExist(err) {
				t.Errorf("%s was created: %v", hooks, err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "important.txt")); string(b) != "keep me\n" {
				t.Errorf("important.txt = %q", b)
			}
			if _, err := os.Lstat(jname); err != nil {
				t.Errorf("the journal was removed: %v", err)
			}
		})
	}
}
