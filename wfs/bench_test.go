package wfs_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/harnesskit/harnesskit/wfs"
)

// BenchmarkStageAndSwitch measures what the patch applier does per file: create a temporary
// exclusively, write it, sync, close, rename it over the target, and read the result back.
func BenchmarkStageAndSwitch(b *testing.B) {
	for _, size := range []int{4 << 10, 6 << 20} {
		data := bytes.Repeat([]byte("line of text\n"), size/13)
		for _, bk := range []struct {
			name string
			fs   func(b *testing.B) (wfs.FS, string)
		}{
			{name: "MemFS", fs: func(b *testing.B) (wfs.FS, string) {
				m := wfs.NewMemFS()
				m.MkdirAll(memRoot(), 0o755)
				return m, memRoot()
			}},
			{name: "OSFS", fs: func(b *testing.B) (wfs.FS, string) {
				dir := b.TempDir()
				o, err := wfs.NewOSFS(dir)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { o.Close() })
				return o, dir
			}},
		} {
			b.Run(bk.name+"/"+byteSize(size), func(b *testing.B) {
				fsys, root := bk.fs(b)
				tmp, target := filepath.Join(root, ".f.tmp"), filepath.Join(root, "f")
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					f, err := fsys.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
					if err != nil {
						b.Fatal(err)
					}
					f.Write(data)
					f.Sync()
					f.Close()
					if err := fsys.Rename(tmp, target); err != nil {
						b.Fatal(err)
					}
					if _, err := fsys.ReadFile(target); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func byteSize(n int) string {
	if n >= 1<<20 {
		return string(rune('0'+n>>20)) + "MiB"
	}
	return string(rune('0'+n>>10)) + "KiB"
}
