package pathguard

import (
	"io/fs"
	"os"
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
// os.Readlink).
func OSResolver() Resolver { return osResolver{} }

func (osResolver) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }
func (osResolver) Readlink(name string) (string, error)   { return os.Readlink(name) }
