package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/loopguard"
)

// invokeWithin runs one call and fails the test if it has not returned within d: a call
// that blocks on a FIFO ignores its context, so the test cannot rely on cancellation.
func invokeWithin(t *testing.T, d time.Duration, tool *tools.Tool, args string) (string, error) {
	t.Helper()
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	go func() {
		out, err := tool.Invoke(ctx, tools.Invocation{Session: t.Name(), Args: json.RawMessage(args)})
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-time.After(d + 2*time.Second):
		t.Fatalf("%s %s did not return within %v (blocked on a FIFO?)", tool.Name, args, d)
		return "", nil
	}
}

func wantHello(t *testing.T, out string, err error) {
	t.Helper()
	if err != nil || !strings.Contains(out, "sub/x.txt:\n  1: hello") {
		t.Errorf("got %q, %v; want the match in sub/x.txt", out, err)
	}
}

// TestGitignoreLinkOutsideIgnored: a .gitignore that is a symlink to a file outside the
// workspace is not read (a link to /dev/zero would exhaust memory), so its rules do not
// apply.
func TestGitignoreLinkOutsideIgnored(t *testing.T) {
	for _, args := range []string{`{"pattern":"hello","path":"sub"}`, `{"pattern":"hello"}`} {
		b, dir := toolbox(t)
		outside := t.TempDir()
		if err := os.WriteFile(filepath.Join(outside, "rules"), []byte("x.txt\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
		os.WriteFile(filepath.Join(dir, "sub", "x.txt"), []byte("hello\n"), 0o644)
		os.Remove(filepath.Join(dir, ".gitignore"))
		if err := os.Symlink(filepath.Join(outside, "rules"), filepath.Join(dir, ".gitignore")); err != nil {
			t.Fatal(err)
		}
		out, err := invokeWithin(t, 3*time.Second, b.Tool("grep"), args)
		wantHello(t, out, err)
	}
}

// TestGrepManyMatchesBoundedMemory: a file where every line matches keeps only the lines
// that can be shown; the rest are counted.
func TestGrepManyMatchesBoundedMemory(t *testing.T) {
	b, dir := toolbox(t)
	const lines = 1 << 18 // 512 KiB file, 262144 matching lines
	if err := os.WriteFile(filepath.Join(dir, "many.txt"), []byte(strings.Repeat("a\n", lines)), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := b.Tool("grep").Call(context.Background(), json.RawMessage(`{"pattern":"a","path":"many.txt"}`))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "Found 262144 matching lines in 1 files (showing the first 100") {
		t.Errorf("got %.200q; want the full count and the first 100 lines", out)
	}
	if raceEnabled {
		t.Log("allocation bound not checked under the race detector (its sync.Pool drops the regexp's pooled machines)")
		return
	}
	// Keeping every match costs at least 24 bytes per line (6 MiB); the file is 0.5 MiB.
	t.Logf("grep allocated %d bytes", after.TotalAlloc-before.TotalAlloc)
	if got := after.TotalAlloc - before.TotalAlloc; got > 3<<20 {
		t.Errorf("grep allocated %d bytes for a %d-byte file; matches beyond the limit must not be kept", got, 2*lines)
	}
}

// TestCancelStopsSlowGrep: a regular expression that is slow on every line (linear, but
// with a large constant) over a 1 MiB file takes tens of seconds; cancelling the call must
// stop it within about a second, not when the file is done.
func TestCancelStopsSlowGrep(t *testing.T) {
	patience := 5 * time.Second // uncancelled, the search takes about 36 s
	if raceEnabled {
		patience = 15 * time.Second // the regexp is about ten times slower
	}
	for _, args := range []string{`{"pattern":"[a-z]{500}Z"}`, `{"pattern":"[a-z]{500}Z","path":"big.txt"}`} {
		b, dir := toolbox(t)
		line := strings.Repeat("abcdefghij", 200) + "\n" // long lines: the automaton keeps 500 threads alive
		if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat(line, (1<<20)/len(line))), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		done := make(chan error, 1)
		start := time.Now()
		go func() {
			_, err := b.Tool("grep").Call(ctx, json.RawMessage(args))
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) || tools.IsToolError(err) {
				t.Errorf("%s: got %v; want the context's error as a host error", args, err)
			}
			t.Logf("%s: returned %v after the start", args, time.Since(start).Round(time.Millisecond))
		case <-time.After(patience):
			t.Errorf("%s: still running %v after the call started, 0.3s before it was cancelled", args, patience)
		}
		cancel()
	}
}

// TestLoopGuardSeesThroughJSONSpelling: the same grep spelt six ways (keys reordered,
// whitespace, an escaped key, a number in exponent form) is the same call: noticed from
// the third, refused on the sixth.
func TestLoopGuardSeesThroughJSONSpelling(t *testing.T) {
	b, _ := toolbox(t)
	spellings := []string{
		`{"pattern":"Greet","limit":100}`,
		`{"limit":100,"pattern":"Greet"}`,
		"{ \"pattern\" : \"Greet\" ,\n \"limit\" : 100 }",
		`{"p\u0061ttern":"Greet","limit":100}`,
		`{"pattern":"Gr\u0065et","limit":1e2}`,
		`{"limit":100.0,"pattern":"Greet"}`,
	}
	for i, args := range spellings {
		out, err := b.Tool("grep").Invoke(context.Background(), tools.Invocation{Session: "s", Args: json.RawMessage(args)})
		switch {
		case i < 5 && err != nil:
			t.Fatalf("call %d %s: %v", i+1, args, err)
		case i >= 2 && i < 5 && !strings.Contains(out, "identical"):
			t.Errorf("call %d %s: no loop notice in %q", i+1, args, out)
		case i == 5 && !errors.Is(err, loopguard.ErrRefused):
			t.Errorf("call 6 %s: got %q, %v; want a loop refusal", args, out, err)
		}
	}
}

// TestIntegerSpellings: the schema accepts any JSON number with no fraction as an
// integer (100, 100.0, 1e2); the tool must accept them too, and say plainly when an
// integer is out of range.
func TestIntegerSpellings(t *testing.T) {
	b, _ := toolbox(t)
	for _, tc := range []struct {
		args string
		ok   bool
		want string // in the output, or in the error
	}{
		{`{"pattern":"Greet","limit":2}`, true, "Found"},
		{`{"pattern":"Greet","limit":2.0}`, true, "Found"},
		{`{"pattern":"Greet","limit":2e0}`, true, "Found"},
		{`{"pattern":"Greet","limit":0.2E1}`, true, "Found"},
		{`{"pattern":"Greet","limit":1e300}`, false, "limit is too large"},
		{`{"pattern":"Greet","limit":2.5}`, false, `want "integer"`},
	} {
		out, err := b.Tool("grep").Invoke(context.Background(), tools.Invocation{Session: tc.args, Args: json.RawMessage(tc.args)})
		if tc.ok && (err != nil || !strings.Contains(out, tc.want)) {
			t.Errorf("%s: got %q, %v; want a result", tc.args, out, err)
		}
		if !tc.ok && (!errors.Is(err, tools.ErrInvalidArgs) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "Go struct")) {
			t.Errorf("%s: got %q, %v; want an invalid-arguments error saying %q", tc.args, out, err, tc.want)
		}
	}
}

// TestSwapDirForLinkAfterCheck: a directory swapped for a link out of the workspace
// between the path check and the search must not let grep or glob read outside. The swap
// races the calls for a bounded time; before the fix the leak showed within ~1000 calls.
func TestSwapDirForLinkAfterCheck(t *testing.T) {
	for _, c := range []struct{ tool, args string }{
		{"grep", `{"pattern":"SECRET|hello","path":"d"}`},
		{"glob", `{"pattern":"*","path":"d"}`},
	} {
		t.Run(c.tool, func(t *testing.T) {
			b, dir := toolbox(t, tools.WithLoopGuard(loopguard.WithExemptTools("grep", "glob")))
			outside := t.TempDir()
			os.WriteFile(filepath.Join(outside, "SECRET.txt"), []byte("SECRET\n"), 0o644)
			d, real := filepath.Join(dir, "d"), filepath.Join(dir, "d_real")
			os.MkdirAll(d, 0o755)
			os.WriteFile(filepath.Join(d, "hello.txt"), []byte("hello\n"), 0o644)
			stop := make(chan struct{})
			swapped := make(chan struct{})
			go func() {
				defer close(swapped)
				for {
					select {
					case <-stop:
						return
					default:
					}
					os.Rename(d, real)
					os.Symlink(outside, d)
					os.Remove(d)
					os.Rename(real, d)
				}
			}()
			deadline := time.Now().Add(750 * time.Millisecond)
			calls := 0
			for ; time.Now().Before(deadline); calls++ {
				out, err := b.Tool(c.tool).Invoke(context.Background(), tools.Invocation{Session: "s", Args: json.RawMessage(c.args)})
				if strings.Contains(out, "SECRET") {
					t.Errorf("call %d read outside the workspace: %q, %v", calls, out, err)
					break
				}
			}
			close(stop)
			<-swapped
			t.Logf("%d calls raced the swap", calls)
		})
	}
}

// TestOutputBounded: however large the limit a call asks for, the text returned stays
// within tools.MaxOutputBytes (plus the header and closing note) and says how to get the rest.
func TestOutputBounded(t *testing.T) {
	b, dir := toolbox(t)
	line := strings.Repeat("a", 999) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "wide.txt"), []byte(strings.Repeat(line, 4000)), 0o644); err != nil {
		t.Fatal(err)
	}
	// 700 paths of about 460 bytes: 320 KB of paths.
	long := filepath.Join(dir, "long", strings.Repeat("d", 200))
	if err := os.MkdirAll(long, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 700 {
		name := fmt.Sprintf("%04d-%s", i, strings.Repeat("n", 245))
		if err := os.WriteFile(filepath.Join(long, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ tool, args, want string }{
		{"read", `{"file_path":"wide.txt","limit":1000000}`, "Call read again with offset"},
		{"read", `{"file_path":"wide.txt"}`, "Call read again with offset"},
		{"grep", `{"pattern":"a","path":"wide.txt","limit":1000000}`, "showing the first"},
		{"glob", `{"pattern":"long/**","limit":1000000}`, "showing the first"},
	} {
		out, err := b.Tool(c.tool).Invoke(context.Background(), tools.Invocation{Session: c.args, Args: json.RawMessage(c.args)})
		if err != nil {
			t.Fatalf("%s %s: %v", c.tool, c.args, err)
		}
		if len(out) > tools.MaxOutputBytes+1024 || !strings.Contains(out, c.want) {
			t.Errorf("%s %s: %d bytes; want at most %d and a note %q, got tail %q", c.tool, c.args, len(out), tools.MaxOutputBytes, c.want, out[max(0, len(out)-200):])
		}
	}
}

// TestGlobPatternDots: a pattern with a .. segment is refused with a pointer to path
// (not "No files found", which reads as an empty directory); ./ segments are dropped.
func TestGlobPatternDots(t *testing.T) {
	b, dir := toolbox(t)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "x.txt"), []byte("x\n"), 0o644)
	for _, c := range []struct {
		args string
		ok   bool
		want string
	}{
		{`{"pattern":"./sub/*.txt"}`, true, "sub/x.txt"},
		{`{"pattern":"sub/./*.txt"}`, true, "sub/x.txt"},
		{`{"pattern":"../*"}`, false, "put the directory to search in path"},
		{`{"pattern":".."}`, false, "put the directory to search in path"},
		{`{"pattern":"sub/../../*"}`, false, "put the directory to search in path"},
		{`{"pattern":"**/../../*"}`, false, "put the directory to search in path"},
		{`{"pattern":"sub/../sub/*.txt"}`, false, "put the directory to search in path"},
	} {
		out, err := b.Tool("glob").Invoke(context.Background(), tools.Invocation{Session: c.args, Args: json.RawMessage(c.args)})
		if c.ok && (err != nil || !strings.Contains(out, c.want)) {
			t.Errorf("%s: got %q, %v; want %q listed", c.args, out, err, c.want)
		}
		if !c.ok && (!errors.Is(err, tools.ErrInvalidArgs) || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: got %q, %v; want an invalid-arguments error saying %q", c.args, out, err, c.want)
		}
	}
}

// TestContainmentHeld: paths that try to leave the workspace (absolute, .., links to
// files, directories and devices outside, /proc, NUL bytes, a duplicated key) are tool
// errors naming the problem, for every tool that takes a path.
func TestContainmentHeld(t *testing.T) {
	testenv.Symlinks(t)
	b, dir := toolbox(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("SECRET\n"), 0o644)
	for _, l := range [][2]string{{"/dev/zero", "zero"}, {outside, "outdir"}, {filepath.Join(outside, "secret.txt"), "outfile"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	const outsideMsg, nulMsg = "outside the workspace", "NUL byte"
	for _, c := range []struct{ tool, args, want string }{
		{"read", `{"file_path":"zero"}`, outsideMsg},
		{"read", `{"file_path":"/dev/zero"}`, outsideMsg},
		{"read", `{"file_path":"outfile"}`, outsideMsg},
		{"read", `{"file_path":"outdir/secret.txt"}`, outsideMsg},
		{"read", `{"file_path":"../x"}`, outsideMsg},
		{"read", `{"file_path":"/etc/passwd"}`, outsideMsg},
		{"read", `{"file_path":"/proc/self/root/etc/passwd"}`, outsideMsg},
		{"read", `{"file_path":"a\u0000b"}`, nulMsg},
		{"read", `{"file_path":"README.md","file_path":"/etc/passwd"}`, outsideMsg},
		{"grep", `{"pattern":"x","path":"zero"}`, outsideMsg},
		{"grep", `{"pattern":"x","path":"outdir"}`, outsideMsg},
		{"grep", `{"pattern":"SECRET","path":"/"}`, outsideMsg},
		{"grep", `{"pattern":"x","path":"a\u0000b"}`, nulMsg},
		{"glob", `{"pattern":"**","path":"/"}`, outsideMsg},
		{"glob", `{"pattern":"**","path":"outdir"}`, outsideMsg},
		{"apply_patch", `{"patchText":"*** Begin Patch\n*** Add File: outdir/new.txt\n+x\n*** End Patch"}`, "outside"},
		{"apply_patch", `{"patchText":"*** Begin Patch\n*** Update File: zero\n@@\n-x\n+y\n*** End Patch"}`, "outside"},
	} {
		out, err := invokeWithin(t, 3*time.Second, b.Tool(c.tool), c.args)
		if !tools.IsToolError(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(out+err.Error(), "SECRET") {
			t.Errorf("%s %s: got %q, %v; want a tool error mentioning %q", c.tool, c.args, out, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Error("apply_patch wrote outside the workspace")
	}
}
