package format_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/wfs/wfstest"
)

// TestMetadata runs the write layer's metadata table (owner, xattr, ACL, hard link,
// setuid/setgid/sticky, 0444, symlink, FIFO, 243-byte name, a file grown past the limit)
// through Runner.File, with a stdin formatter that upper-cases the file.
func TestMetadata(t *testing.T) {
	stdin := format.Stdin
	cfg := format.Config{Overrides: map[string]format.Override{"upper": {Args: []string{"upper"}, Extensions: []string{".txt"}, Mode: &stdin}}}
	upper := func(_ context.Context, _ []string, _ string, _ []string, in []byte) ([]byte, []byte, error) {
		return bytes.ToUpper(in), nil, nil
	}
	const limit = 1 << 10
	file := func(dir, name string, exec format.ExecFunc) error {
		r := format.Runner{Exec: exec, MaxFileSize: limit}
		env := format.Env{Root: dir, FS: nil, LookPath: fakePath(), Getenv: func(string) string { return "" }}
		return r.File(context.Background(), env, cfg, format.Builtins(), name).Err
	}
	wfstest.Metadata(t, wfstest.Writer{
		Name:   "notes.txt",
		Before: []byte("some notes\n"),
		Edit:   func(t *testing.T, dir, name string) error { return file(dir, name, upper) },
		// The plan is everything up to the formatter's run: File has read the file; the
		// commit lets the formatter finish and File write back.
		Plan: func(t *testing.T, dir, name string) func() error {
			started, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
			held := func(ctx context.Context, argv []string, d string, env []string, in []byte) ([]byte, []byte, error) {
				close(started)
				<-release
				return upper(ctx, argv, d, env, in)
			}
			go func() { done <- file(dir, name, held) }()
			<-started
			return func() error {
				close(release)
				return <-done
			}
		},
		Limit: limit,
	})
}
