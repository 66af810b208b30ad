package pathguard

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A Resolver is the file-system seam of [Containment]: the two calls a realpath walk needs.
// Lstat must not follow a final symlink; Readlink returns a link's target as stored.
// Errors should wrap fs.ErrNotExist for a missing component and syscall.ENOTDIR for a
// component under a non-directory; any other error makes the check fail closed.
type Resolver interface {
	Lstat(name string) (fs.FileInfo, error)
	Readlink(name string) (string, error)
}

type osResolver struct{}

var _ Resolver = osResolver{}

// OSResolver returns the Resolver of the machine's own file system (os.Lstat and
// os.Readlink). It is also a [SpellingResolver], reading directories for on-disk names.
func OSResolver() Resolver { return osResolver{} }

func (osResolver) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }
func (osResolver) Readlink(name string) (string, error)   { return os.Readlink(name) }

// A SpellingResolver is a [Resolver] that can also say under which name a directory stores
// an entry. With case folding on, [Containment] asks it for the on-disk spelling of a
// component that differs from a base's only in case, so that a case-insensitive volume
// matches and a second directory on a case-sensitive one does not.
type SpellingResolver interface {
	Resolver
	// Spelling returns the name of the entry of directory dir that the file system
	// opens for name: name itself when the directory holds an entry spelled exactly so,
	// else the entry it matched on a case-insensitive volume. An error wrapping
	// fs.ErrNotExist means there is no such entry.
	Spelling(dir, name string) (string, error)
}

var _ SpellingResolver = osResolver{}

// Spelling implements [SpellingResolver] by reading the directory: an exact entry wins;
// otherwise the entry whose name folds equal and which is the same file as dir/name;
// otherwise (an alias the file system resolves but does not list, such as a Windows 8.3
// short name) name itself.
func (osResolver) Spelling(dir, name string) (string, error) {
	want, err := os.Lstat(filepath.Join(dir, name))
	if err != nil {
		return "", err
	}
	d, err := os.Open(dir)
	if err != nil {
		return "", err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return "", err
	}
	for _, n := range names {
		if n == name {
			return n, nil
		}
	}
	for _, n := range names {
		if !strings.EqualFold(n, name) {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(dir, n)); err == nil && os.SameFile(fi, want) {
			return n, nil
		}
	}
	// The file system opened name, but no entry is spelled like it: an alias such as a
	// Windows 8.3 short name ("PROGRA~1"). It is its own spelling, so it matches no other.
	return name, nil
}
