package tools_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type bytes []byte

func (b *bytes) indent(raw []byte) {
	var v any
	if json.Unmarshal(raw, &v) == nil {
		*b, _ = json.MarshalIndent(v, "", "  ")
		*b = append(*b, '\n')
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s differs (-want +got), run go test -update after review:\n%s", path, d)
	}
}
