package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestTranscript runs the whole demo and compares its transcript with the golden file,
// which the README quotes. Run "go test ./examples/demo -update" after a deliberate change.
func TestTranscript(t *testing.T) {
	if why := astsearchUnavailable(); why != "" {
		t.Skipf("the golden transcript includes the astsearch step, which is skipped here: %s", why)
	}
	parent := t.TempDir()
	var out bytes.Buffer
	if err := run(t.Context(), &out, parent); err != nil {
		t.Fatalf("demo failed: %v\ntranscript so far:\n%s", err, out.String())
	}
	golden := filepath.Join("testdata", "transcript.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("transcript differs from %s (run with -update after a deliberate change)\n--- got\n%s\n--- want\n%s", golden, out.Bytes(), want)
	}
	// The demo removes its temporary directory and leaves nothing else behind.
	left, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("demo left %d entries in its temporary parent: %v", len(left), left)
	}
}

// TestDeterministic runs the demo twice: the transcripts must be the same byte for byte.
func TestDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := run(t.Context(), &a, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if err := run(t.Context(), &b, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("two runs differ:\n%s\n---\n%s", a.Bytes(), b.Bytes())
	}
	if bytes.Contains(a.Bytes(), []byte(os.TempDir())) {
		t.Errorf("transcript leaks the temporary directory path:\n%s", a.Bytes())
	}
}
