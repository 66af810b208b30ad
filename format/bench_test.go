package format_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/internal/testenv"
)

// benchProject is a monorepo-shaped tree: the file is five directories deep, and the
// evidence (biome.json, package.json with prettier) sits at the root.
func benchProject() fstest.MapFS {
	return fstest.MapFS{
		"package.json":                 {Data: []byte(`{"devDependencies":{"prettier":"3"}}`)},
		"biome.json":                   {Data: []byte(`{}`)},
		"apps/web/src/ui/forms/a.tsx":  {Data: []byte("export {}\n")},
		"services/api/cmd/server/x.go": {Data: []byte("package main\n")},
	}
}

// BenchmarkDetect measures detection for a .tsx file (biome, prettier and oxfmt compete) and
// reports the fs calls per detection: cold builds no cache, warm reuses one. cpu-ns/op is the
// process's CPU time per detection, which a loaded machine inflates less than ns/op (with
// -cpu 1 it includes the garbage collector's share).
func BenchmarkDetect(b *testing.B) {
	for _, warm := range []bool{false, true} {
		name := "cold"
		if warm {
			name = "warm"
		}
		b.Run(name, func(b *testing.B) {
			fsys := &countFS{FS: benchProject()}
			env := format.Env{Root: "/proj", FS: fsys, LookPath: fakePath("biome", "prettier"), Getenv: func(string) string { return "" }}
			reg := format.Builtins()
			if warm {
				env.Cache = format.NewCache()
				format.Detect(env, format.Config{}, reg, "apps/web/src/ui/forms/a.tsx")
			}
			fsys.n.Store(0)
			b.ReportAllocs()
			cpu := testenv.CPUNanos()
			for b.Loop() {
				plans, _ := format.Detect(env, format.Config{}, reg, "apps/web/src/ui/forms/a.tsx")
				if len(plans) != 1 || plans[0].Def.Name != "biome" {
					b.Fatalf("plans %v", plans)
				}
			}
			b.ReportMetric(float64(testenv.CPUNanos()-cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(fsys.n.Load())/float64(b.N), "fscalls/op")
		})
	}
}

// BenchmarkRunnerCat runs /bin/cat as a stdin formatter through the Runner, next to running
// it directly with os/exec: the difference is the runner's overhead (detection, process
// group, timeout, diff of an unchanged file). cpu-ns/op counts this process only (the
// formatter's own CPU time is not in it).
func BenchmarkRunnerCat(b *testing.B) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		b.Skip("no cat")
	}
	src := []byte(strings.Repeat("line of text\n", 1000))
	b.Run("exec", func(b *testing.B) {
		cpu := testenv.CPUNanos()
		for b.Loop() {
			cmd := exec.Command(cat)
			cmd.Stdin = strings.NewReader(string(src))
			if _, err := cmd.Output(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(testenv.CPUNanos()-cpu)/float64(b.N), "cpu-ns/op")
	})
	b.Run("runner", func(b *testing.B) {
		reg := []format.Def{{Name: "cat", Extensions: []string{".txt"}, Args: []string{cat}, Mode: format.Stdin}}
		env := format.Env{Root: testenv.TempDir(b), FS: fstest.MapFS{}, LookPath: fakePath()}
		var r format.Runner
		cfg := format.Config{Enabled: format.On()}
		b.ReportAllocs()
		cpu := testenv.CPUNanos()
		for b.Loop() {
			res := r.Bytes(context.Background(), env, cfg, reg, "a.txt", src)
			if res.Err != nil || res.Formatter != "cat" || res.Changed {
				b.Fatalf("%+v", res)
			}
		}
		b.ReportMetric(float64(testenv.CPUNanos()-cpu)/float64(b.N), "cpu-ns/op")
	})
}

// BenchmarkGofmt formats a 1k-line and a 4k-line file of the standard library in process,
// through the Runner (detection included), once as is and once with its indentation
// stripped so that every line changes and the diff is computed.
func BenchmarkGofmt(b *testing.B) {
	for _, tc := range []struct{ name, file string }{
		{"1k_lines", "fmt/print.go"},
		{"4k_lines", "net/http/server.go"},
	} {
		src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", filepath.FromSlash(tc.file)))
		if err != nil {
			b.Skip("GOROOT sources are not installed")
		}
		var stripped strings.Builder
		for line := range strings.Lines(string(src)) {
			stripped.WriteString(strings.TrimLeft(line, "\t"))
		}
		env := format.Env{Root: "/proj", FS: fstest.MapFS{}, LookPath: fakePath()}
		for _, v := range []struct {
			name string
			src  []byte
		}{{"formatted", src}, {"unindented", []byte(stripped.String())}} {
			b.Run(tc.name+"/"+v.name, func(b *testing.B) {
				var r format.Runner
				b.SetBytes(int64(len(v.src)))
				b.ReportAllocs()
				cpu := testenv.CPUNanos()
				for b.Loop() {
					res := r.Bytes(context.Background(), env, format.Config{}, format.Builtins(), "x.go", v.src)
					if res.Err != nil {
						b.Fatal(res.Err)
					}
				}
				b.ReportMetric(float64(testenv.CPUNanos()-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkFile formats a small untidy Go file on disk and writes it back (gofmt in
// process), the file rewritten untidy before each run: what the write-back costs (read,
// re-check, lock, journal, fsync of the file and its directory).
func BenchmarkFile(b *testing.B) {
	dir := testenv.TempDir(b)
	p := filepath.Join(dir, "a.go")
	env := format.Env{Root: dir, FS: os.DirFS(dir), LookPath: fakePath()}
	var r format.Runner
	b.ReportAllocs()
	for b.Loop() {
		if err := os.WriteFile(p, []byte("package p\nvar  x = 1\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		if res := r.File(context.Background(), env, format.Config{}, format.Builtins(), p); res.Err != nil || !res.Changed {
			b.Fatalf("%v %v", res.Err, res.Changed)
		}
	}
}
