package tools

import (
	"context"
	_ "embed"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/jsonschema-go/jsonschema"
)

// DefaultGlobLimit is how many paths glob shows when the call gives no limit.
const DefaultGlobLimit = 100

//go:embed descriptions/glob.md
var globDescription string

type globArgs struct {
	Pattern string `json:"pattern" jsonschema:"a glob relative to path: * any name, ** any depth, ? one character, [abc] a class, {a,b} alternatives"`
	Path    string `json:"path,omitempty" jsonschema:"the directory to search: absolute, or relative to the workspace root (default: the root)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"the most paths to show (default 100)"`
}

func newGlob(_ *Toolbox, _ *config) (*Tool, error) {
	return makeTool("glob", globDescription, Annotations{ReadOnly: true, Idempotent: true},
		func(s *jsonschema.Schema) {
			one := 1.0
			s.Properties["limit"].Minimum = &one
		},
		func(ctx context.Context, w *workspace, in *globArgs, p Progress) (string, error) {
			return w.glob(ctx, in, p)
		})
}

// globPattern returns a glob in the slash form the walk matches. On Windows `\` is a path
// separator, as in the paths a model writes there (src\**\*.go), so it becomes `/`, and a
// meta character is matched literally with a class instead ([*]). Elsewhere `\` stays the
// pattern's escape character, since a file name may contain it.
func globPattern(p string, windows bool) string {
	if windows {
		return strings.ReplaceAll(p, `\`, "/")
	}
	return p
}

func (w *workspace) glob(ctx context.Context, in *globArgs, p Progress) (string, error) {
	in.Pattern = globPattern(in.Pattern, runtime.GOOS == "windows")
	if in.Pattern == "" || strings.HasPrefix(in.Pattern, "/") || filepath.IsAbs(filepath.FromSlash(in.Pattern)) || !doublestar.ValidatePattern(in.Pattern) {
		return "", invalidf("glob: pattern %q is not a valid relative glob; use e.g. **/*.go, and put the directory to search in path", in.Pattern)
	}
	// The walk yields clean paths: "./" segments would never match, ".." ones leave the
	// directory searched.
	pattern := in.Pattern
	for strings.HasPrefix(pattern, "./") {
		pattern = pattern[2:]
	}
	for strings.Contains(pattern, "/./") {
		pattern = strings.ReplaceAll(pattern, "/./", "/")
	}
	if slices.Contains(strings.Split(pattern, "/"), "..") {
		return "", invalidf("glob: pattern %q has a .. segment; put the directory to search in path (absolute, or relative to the workspace root) and keep the pattern below it", in.Pattern)
	}
	in.Pattern = pattern
	r, dir, single, ancestors, err := w.searchRoot(ctx, "glob", in.Path)
	if err != nil {
		return "", err
	}
	defer r.Close()
	if single != "" {
		return "", invalidf("glob: path %s is a file; give the directory to search", in.Path)
	}
	// Walk only below the pattern's fixed leading directories.
	base, _ := doublestar.SplitPattern(in.Pattern)
	if fi, err := r.Stat(base); err != nil || !fi.IsDir() {
		return "No files found.\n", nil
	}
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultGlobLimit
	}
	// Only the paths that can be shown are kept (the walk is in order); the rest counted.
	var found []string
	total, size, files := 0, 0, 0
	err = walkFiles(ctx, r, base, ancestors, func(d *dirHandle, rel string) error {
		d.release()
		files++
		if p != nil && files%progressEvery == 0 {
			p(float64(files), 0, fmt.Sprintf("glob: %d files looked at", files))
		}
		if ok, _ := doublestar.Match(in.Pattern, rel); ok {
			total++
			if f := w.display(filepath.Join(dir, filepath.FromSlash(rel))); len(found) < limit && (len(found) == 0 || size+len(f)+1 <= MaxOutputBytes) && len(found) == total-1 {
				found = append(found, f)
				size += len(f) + 1
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if total == 0 {
		return "No files found.\n", nil
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Found %d files", total)
	switch {
	case len(found) == limit && total > limit:
		fmt.Fprintf(&sb, " (showing the first %d; narrow the pattern or raise limit)", limit)
	case len(found) < total:
		fmt.Fprintf(&sb, " (showing the first %d, all that fit in %d bytes; narrow the pattern)", len(found), MaxOutputBytes)
	}
	sb.WriteString("\n")
	for _, f := range found {
		sb.WriteString(f + "\n")
	}
	return sb.String(), nil
}
