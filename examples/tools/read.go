package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Limits of the read tool.
const (
	DefaultReadLimit   = 2000 // lines returned when the call gives no limit
	DefaultMaxLineRune = 2000 // longer lines are cut, with a marker
)

//go:embed descriptions/read.md
var readDescription string

type readArgs struct {
	FilePath string `json:"file_path" jsonschema:"the file to read: absolute, or relative to the workspace root"`
	Offset   int    `json:"offset,omitempty" jsonschema:"the 1-based line number to start at (default 1)"`
	Limit    int    `json:"limit,omitempty" jsonschema:"how many lines to return (default 2000)"`
}

func newRead(_ *Toolbox, _ *config) (*Tool, error) {
	return makeTool("read", readDescription, Annotations{ReadOnly: true, Idempotent: true},
		func(s *jsonschema.Schema) {
			one := 1.0
			s.Properties["offset"].Minimum = &one
			s.Properties["limit"].Minimum = &one
		},
		func(ctx context.Context, w *workspace, in *readArgs, _ Progress) (string, error) {
			return w.read(ctx, in)
		})
}

func (w *workspace) read(ctx context.Context, in *readArgs) (string, error) {
	if in.FilePath == "" {
		return "", invalidf("read: file_path is empty; give the path of a file, absolute or relative to the workspace root")
	}
	t, err := w.contained(in.FilePath)
	if err != nil {
		return "", err
	}
	r, rel, err := openBase(t)
	if err != nil {
		return "", err
	}
	defer r.Close()
	f, fi, err := openRegular(r, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read: %s does not exist (looked for %s); use glob to find the file: %w", in.FilePath, t.Real, fs.ErrNotExist)
	}
	if errors.Is(err, errNotRegular) {
		return "", &notTextError{fmt.Sprintf("read: %s is not a regular file (a FIFO, device or socket); read shows text files only", in.FilePath)}
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	if fi.IsDir() {
		return "", &notTextError{fmt.Sprintf("read: %s is a directory; use glob to list its files", in.FilePath)}
	}
	offset, limit := max(in.Offset, 1), in.Limit
	if limit <= 0 {
		limit = DefaultReadLimit
	}
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(8000); bytes.IndexByte(head, 0) >= 0 {
		return "", &notTextError{fmt.Sprintf("read: %s is a binary file; read shows text files only", in.FilePath)}
	}
	var out strings.Builder
	n, shown, last := 0, 0, 0
	for {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return "", err
			}
		}
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) { // a line longer than the buffer: keep its head
			head := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
			}
			line = head
		}
		if len(line) == 0 && err != nil {
			if err == io.EOF {
				break
			}
			return "", err
		}
		n++
		if n >= offset && shown < limit {
			text := strings.TrimRight(string(line), "\r\n")
			if r := []rune(text); len(r) > DefaultMaxLineRune {
				text = string(r[:DefaultMaxLineRune]) + " … [line cut at 2000 characters]"
			}
			if formatted := fmt.Sprintf("%6d\t%s\n", n, text); shown > 0 && out.Len()+len(formatted) > MaxOutputBytes {
				limit = shown // the page is full: the note below says where to continue
			} else {
				out.WriteString(formatted)
				shown++
				last = n
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
	}
	switch {
	case n == 0:
		return fmt.Sprintf("(%s is empty)\n", in.FilePath), nil
	case shown == 0:
		return "", invalidf("read: offset %d is past the end of %s, which has %d lines; use an offset from 1 to %d", offset, in.FilePath, n, n)
	case last < n:
		fmt.Fprintf(&out, "\n(%s has %d lines; showing %d-%d. Call read again with offset %d to continue.)\n", in.FilePath, n, offset, last, last+1)
	}
	return out.String(), nil
}

// notTextError is the cause of an ErrNotText tool error.
type notTextError struct{ msg string }

func (e *notTextError) Error() string        { return e.msg }
func (e *notTextError) Is(target error) bool { return target == ErrNotText }
