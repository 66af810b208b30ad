//go:build unix

package wfstest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"runtime"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/harnesskit/harnesskit/wfs"
)

// systemCases are the rows that need Unix calls: owners, attributes, links, modes, FIFOs.
func systemCases() []metaCase {
	return []metaCase{
		{name: "owner", setup: func(t *testing.T, w *Writer, dir, file string) string {
			if os.Geteuid() != 0 {
				t.Log("changing a file's owner needs a superuser")
				return ""
			}
			must(t, os.Chown(file, 1000, 1000))
			return file
		}, check: func(t *testing.T, w *Writer, dir, file string, err error) {
			edited(t, w, file, err)
			fi, _ := os.Stat(file)
			if st := fi.Sys().(*syscall.Stat_t); st.Uid != 1000 || st.Gid != 1000 {
				t.Errorf("owner %d:%d, want 1000:1000 kept", st.Uid, st.Gid)
			}
		}},
		{name: "xattr", setup: func(t *testing.T, w *Writer, dir, file string) string {
			if err := unix.Setxattr(file, "user.harnesskit", []byte("kept"), 0); err != nil {
				t.Logf("user extended attributes unavailable here: %v", err)
				return ""
			}
			return file
		}, check: func(t *testing.T, w *Writer, dir, file string, err error) {
			edited(t, w, file, err)
			if v := getxattr(file, "user.harnesskit"); string(v) != "kept" {
				t.Errorf("user.harnesskit = %q, want %q kept", v, "kept")
			}
		}},
		{name: "acl", setup: func(t *testing.T, w *Writer, dir, file string) string {
			if runtime.GOOS != "linux" {
				t.Log("POSIX ACLs as extended attributes are Linux's")
				return ""
			}
			if err := unix.Setxattr(file, aclName, accessACL(), 0); err != nil {
				t.Logf("POSIX ACLs unavailable here: %v", err)
				return ""
			}
			return file
		}, check: func(t *testing.T, w *Writer, dir, file string, err error) {
			edited(t, w, file, err)
			if v := getxattr(file, aclName); !bytes.Equal(v, accessACL()) {
				t.Errorf("%s = %x, want %x kept (the user:1000:r-- entry)", aclName, v, accessACL())
			}
		}},
		{name: "hard_link", setup: func(t *testing.T, w *Writer, dir, file string) string {
			if err := os.Link(file, file+".link"); err != nil {
				t.Logf("hard links unavailable: %v", err)
				return ""
			}
			return file
		}, check: func(t *testing.T, w *Writer, dir, file string, err error) {
			edited(t, w, file, err)
			a, _ := os.ReadFile(file)
			b, _ := os.ReadFile(file + ".link")
			fa, _ := os.Stat(file)
			fb, _ := os.Stat(file + ".link")
			if !bytes.Equal(a, b) || !os.SameFile(fa, fb) {
				t.Errorf("the hard link was split: %q and %q, one file %v", a, b, os.SameFile(fa, fb))
			}
		}},
		{name: "setuid_setgid_sticky", setup: func(t *testing.T, w *Writer, dir, file string) string {
			mode := fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky | 0o755
			if err := os.Chmod(file, mode); err != nil {
				t.Logf("cannot set the mode: %v", err)
				return ""
			}
			if fi, _ := os.Stat(file); fi.Mode()&wfs.ModeBits != mode {
				t.Logf("the file system does not keep %v (got %v)", mode, fi.Mode())
				return ""
			}
			return file
		}, check: func(t *testing.T, w *Writer, dir, file string, err error) {
			edited(t, w, file, err)
			wantMode(t, file, fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky|0o755)
		}},
		{name: "fifo", setup: func(t *testing.T, w *Writer, dir, file string) string {
			must(t, os.Remove(file))
			if err := syscall.Mkfifo(file, 0o644); err != nil {
				t.Logf("FIFOs unavailable: %v", err)
				return ""
			}
			return file
		}, check: func(t *testing.T, w *Writer, dir, file string, err error) {
			if err == nil {
				t.Errorf("the edit of a FIFO succeeded; want it refused")
			}
			if fi, lerr := os.Lstat(file); lerr != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
				t.Errorf("the FIFO was replaced: %v, %v", fi, lerr)
			}
		}},
	}
}

const aclName = "system.posix_acl_access"

// accessACL is a POSIX access ACL in the kernel's xattr encoding: user::rw-, user:1000:r--,
// group::r--, mask::r--, other::r--.
func accessACL() []byte {
	const (
		userObj  = 0x01
		user     = 0x02
		groupObj = 0x04
		mask     = 0x10
		other    = 0x20
		undef    = 0xffffffff
	)
	entries := []struct {
		tag, perm uint16
		id        uint32
	}{{userObj, 6, undef}, {user, 4, 1000}, {groupObj, 4, undef}, {mask, 4, undef}, {other, 4, undef}}
	b := binary.LittleEndian.AppendUint32(nil, 2) // version
	for _, e := range entries {
		b = binary.LittleEndian.AppendUint16(b, e.tag)
		b = binary.LittleEndian.AppendUint16(b, e.perm)
		b = binary.LittleEndian.AppendUint32(b, e.id)
	}
	return b
}

func getxattr(file, name string) []byte {
	buf := make([]byte, 256)
	n, err := unix.Getxattr(file, name, buf)
	if err != nil {
		if errors.Is(err, errNoAttr) {
			return nil
		}
		return []byte("error: " + err.Error())
	}
	return buf[:n]
}
