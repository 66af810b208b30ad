package main

import (
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

func TestCodexPatch(t *testing.T) {
	hunks := "@@ -1,3 +1,3 @@ func f() {\n a\n-b\n+B\n \n@@ -9,2 +9,3 @@\n x\n+y\n"
	text, err := codexPatch("p/f.go", hunks)
	if err != nil {
		t.Fatal(err)
	}
	want := "*** Begin Patch\n*** Update File: p/f.go\n@@\n a\n-b\n+B\n \n@@\n x\n+y\n*** End Patch\n"
	if text != want {
		t.Fatalf("codexPatch = %q, want %q", text, want)
	}
	p, err := patch.Parse(text)
	if err != nil || len(p.Hunks) != 1 || len(p.Hunks[0].Chunks) != 2 {
		t.Fatalf("Parse: %v %+v", err, p)
	}
	if _, err := codexPatch("f", "@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n"); err == nil {
		t.Fatal("a missing final newline was accepted")
	}
}

func TestCategory(t *testing.T) {
	hunks := "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
	tests := []struct {
		name, theirs, want string
	}{
		{name: "block_intact_elsewhere", theirs: "new\nold\na\nb\nc\n", want: "moved"},
		{name: "context_line_changed", theirs: "a\nb\nC\n", want: "stale"},
		{name: "block_split", theirs: "a\nx\nb\nc\n", want: "stale"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := category(hunks, tc.theirs); got != tc.want {
				t.Errorf("category = %q, want %q", got, tc.want)
			}
		})
	}
}
