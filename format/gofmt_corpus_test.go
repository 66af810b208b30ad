package format_test

import (
	"bytes"
	"context"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/format"
)

var gofmtCorpus = flag.Bool("gofmt.corpus", false, "compare in-process gofmt with the gofmt binary on every .go file under GOROOT/src (slow)")

// TestGofmtCorpus checks that in-process formatting is byte-identical to the gofmt binary.
// By default it samples a few standard packages; with -gofmt.corpus it covers every .go file
// under GOROOT/src. It asks the binary once for the list of files whose formatting differs
// ("gofmt -l"): for every other parseable file gofmt's output is the file itself, so ours
// must be too; each listed file is compared with "gofmt <file>" run on it alone. A file the
// binary cannot parse must fail in process too.
func TestGofmtCorpus(t *testing.T) {
	gofmt := filepath.Join(runtime.GOROOT(), "bin", "gofmt")
	if _, err := os.Stat(gofmt); err != nil {
		var lerr error
		if gofmt, lerr = exec.LookPath("gofmt"); lerr != nil {
			t.Skip("the gofmt binary is not installed (it ships with the Go toolchain)")
		}
	}
	src := filepath.Join(runtime.GOROOT(), "src")
	dirs := []string{filepath.Join(src, "fmt"), filepath.Join(src, "go", "printer"), filepath.Join(src, "strconv")}
	if *gofmtCorpus {
		dirs = []string{src}
	}
	var files []string
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".go") {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Skip("no Go sources under " + src)
	}
	// One gofmt -l over the directories: the files it lists differ, stderr names the
	// files it cannot parse.
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(gofmt, append([]string{"-l"}, dirs...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run() // exits 2 when some file does not parse
	listed := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if l != "" {
			listed[l] = true
		}
	}
	broken := map[string]bool{}
	for _, l := range strings.Split(stderr.String(), "\n") {
		if i := strings.Index(l, ".go:"); i >= 0 {
			broken[l[:i+3]] = true
		}
	}

	env := format.Env{Root: src, FS: os.DirFS(src), LookPath: fakePath()}
	var r format.Runner
	parseable, differing, failedBoth := 0, 0, 0
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		res := r.Bytes(context.Background(), env, format.Config{}, format.Builtins(), p, data)
		if broken[p] {
			if res.Err == nil {
				t.Errorf("%s: gofmt cannot parse it, in-process formatting did", p)
			}
			failedBoth++
			continue
		}
		if res.Err != nil {
			t.Errorf("%s: gofmt parses it, in process: %v", p, res.Err)
			continue
		}
		parseable++
		want := data
		if listed[p] {
			differing++
			out, err := exec.Command(gofmt, p).Output()
			if err != nil {
				t.Errorf("gofmt %s: %v", p, err)
				continue
			}
			want = out
		}
		if !bytes.Equal(res.After, want) {
			t.Errorf("%s: in-process output differs from gofmt's:\n%s", p, format.Unified(p, want, res.After))
		}
	}
	t.Logf("gofmt parity: %d parseable files byte-identical (%d of them reformatted by gofmt), %d unparseable by both, %d files in all", parseable, differing, failedBoth, len(files))
}
