package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/examples/tools"
)

// TestGrepMemoryBounded: what grep keeps of a file does not grow with the limit the model
// gives. A file where every line matches, searched with a huge limit, costs about the file
// (grep reads it whole) plus one result's worth of lines, not a copy of every line, and the
// answer stays within MaxOutputBytes.
func TestGrepMemoryBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory makes allocation figures meaningless")
	}
	dir := t.TempDir()
	var sb strings.Builder
	for i := 0; sb.Len() < 8<<20; i++ {
		fmt.Fprintf(&sb, "match %07d\n", i)
	}
	size := uint64(sb.Len())
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sb = strings.Builder{}
	b, err := tools.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	limit := int64(1e12)
	if strconv.IntSize == 32 {
		limit = math.MaxInt32
	}
	for _, path := range []string{".", "big.txt"} { // the tree walk and the single-file search
		args, _ := json.Marshal(map[string]any{"pattern": "match", "path": path, "limit": limit})
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		out, err := b.Tool("grep").Invoke(context.Background(), tools.Invocation{Session: path, Args: args})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("path %s: %d bytes allocated for a %d-byte file, %d-byte answer", path, alloc, size, len(out))
		if bound := 2*size + 4<<20; alloc > bound {
			t.Errorf("path %s: grep allocated %d bytes for a %d-byte file (bound %d): it keeps every matching line", path, alloc, size, bound)
		}
		if len(out) > tools.MaxOutputBytes+1024 {
			t.Errorf("path %s: answer of %d bytes, over MaxOutputBytes", path, len(out))
		}
		if !strings.Contains(out, "all that fit in") {
			t.Errorf("path %s: the answer does not say it was cut:\n%s", path, out[:200])
		}
	}
}
