package format_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/patch"
)

// lostUpdateRole, when set in the environment, makes the test binary one process of
// TestNoLostUpdateWithPatch: "patch:<i>:<n>" applies n patches to line a<i>, "format"
// formats the file until a file named stop appears.
const lostUpdateRole = "HK_FORMAT_LOST_UPDATE"

// TestNoLostUpdateWithPatch runs patch writers and a formatter as separate processes on one
// Go file. Each patch rewrites its own line "var aI = N" to N+1 in an untidy spelling that
// gofmt then tidies, so the formatter writes back again and again while the patches land.
// Every patch a writer saw succeed must be in the final file: the formatter never writes back
// the older text it read (before the write layer, 4 of 600 were lost this way).
func TestNoLostUpdateWithPatch(t *testing.T) {
	if role := os.Getenv(lostUpdateRole); role != "" {
		lostUpdateChild(t, role)
		return
	}
	const writers, patches = 3, 200
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("package p\n\n")
	for i := range writers {
		fmt.Fprintf(&src, "var a%d = 0\n", i)
	}
	file := filepath.Join(dir, "a.go")
	if err := os.WriteFile(file, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var procs []*exec.Cmd
	start := func(role string) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNoLostUpdateWithPatch$")
		cmd.Env = append(os.Environ(), lostUpdateRole+"="+role, "HK_FORMAT_LOST_UPDATE_DIR="+dir)
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
	}
	start("format")
	for i := range writers {
		start(fmt.Sprintf("patch:%d:%d", i, patches))
	}
	succeeded := map[int]int{}
	for i := len(procs) - 1; i >= 0; i-- { // the writers first, then the formatter is stopped
		if i == 0 {
			os.WriteFile(filepath.Join(dir, "stop"), nil, 0o644)
		}
		cmd := procs[i]
		err := cmd.Wait()
		out := cmd.Stdout.(*strings.Builder).String()
		if err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, out)
		}
		if m := regexp.MustCompile(`writer (\d+) succeeded (\d+)`).FindStringSubmatch(out); m != nil {
			w, _ := strconv.Atoi(m[1])
			n, _ := strconv.Atoi(m[2])
			succeeded[w] = n
		}
		if m := regexp.MustCompile(`formatter wrote (\d+)`).FindStringSubmatch(out); m != nil {
			t.Logf("the formatter wrote the file back %s times", m[1])
		}
	}
	final, _ := os.ReadFile(file)
	total := 0
	for i := range writers {
		m := regexp.MustCompile(fmt.Sprintf(`(?m)^var a%d\s*=\s*(\d+)$`, i)).FindSubmatch(final)
		if m == nil {
			t.Fatalf("line a%d is gone:\n%s", i, final)
		}
		got, _ := strconv.Atoi(string(m[1]))
		if got != succeeded[i] {
			t.Errorf("writer %d: %d patches succeeded, the file holds %d: %d lost", i, succeeded[i], got, succeeded[i]-got)
		}
		total += succeeded[i]
	}
	if total == 0 {
		t.Fatalf("no patch succeeded: the test tests nothing")
	}
	t.Logf("%d successful patches", total)
}

func lostUpdateChild(t *testing.T, role string) {
	dir := os.Getenv("HK_FORMAT_LOST_UPDATE_DIR")
	ctx := context.Background()
	file := filepath.Join(dir, "a.go")
	parts := strings.Split(role, ":")
	switch parts[0] {
	case "format":
		f, err := format.New(dir, format.WithLookPath(fakePath()))
		if err != nil {
			t.Fatal(err)
		}
		wrote := 0
		for range 100000 {
			if _, err := os.Stat(filepath.Join(dir, "stop")); err == nil {
				break
			}
			res := f.File(ctx, file)
			if res.Err == nil && res.Changed {
				wrote++
			}
		}
		fmt.Printf("formatter wrote %d\n", wrote)
	case "patch":
		w, _ := strconv.Atoi(parts[1])
		n, _ := strconv.Atoi(parts[2])
		a, err := patch.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		line := regexp.MustCompile(fmt.Sprintf(`(?m)^var a%d\s*=\s*(\d+)$`, w))
		// Read through an os.Root, whose opens share delete access on Windows: os.ReadFile's
		// do not, and collide with the other writers' replacing of the file (a sharing
		// violation).
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		ok := 0
		for range n {
			cur, err := root.ReadFile(filepath.Base(file))
			if err != nil {
				t.Fatal(err)
			}
			m := line.FindSubmatch(cur)
			if m == nil {
				t.Fatalf("line a%d is gone", w)
			}
			v, _ := strconv.Atoi(string(m[1]))
			// The new line is untidy on purpose: gofmt rewrites it to "var aI = N".
			text := fmt.Sprintf("*** Begin Patch\n*** Update File: a.go\n@@\n-%s\n+var a%d  =  %d\n*** End Patch\n", m[0], w, v+1)
			if _, err := a.Apply(ctx, text); err == nil {
				ok++
			}
		}
		fmt.Printf("writer %d succeeded %d\n", w, ok)
	}
}
