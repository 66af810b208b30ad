package main

import (
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

func TestCodexPatch(t *testing.T) {
	hunks := "@@ -1,3 +1,3 @@ func f() {\n a\n-b\n+B\n \n@@ -9,2 +9,3 @@\n x\n+y\n"
	text, err := codexPatch("p/f.go", hunks, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "*** Begin Patch\n*** Update File: p/f.go\n@@\n a\n-b\n+B\n \n@@\n x\n+y\n*** End Patch\n"
	if text != want {
		t.Fatalf("codexPatch = %q, want %q", text, want)
	}
	anchored, err := codexPatch("p/f.go", hunks, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(want, "@@\n a", "@@ func f() {\n a", 1); anchored != want {
		t.Fatalf("codexPatch with anchors = %q, want %q", anchored, want)
	}
	cut := "@@ -1 +1 @@ " + strings.Repeat("x", 79) + "\n-a\n+b\n"
	if got, _ := codexPatch("f", cut, true); !strings.Contains(got, "\n@@\n-a") {
		t.Fatalf("a function line git may have cut became an anchor: %q", got)
	}
	p, err := patch.Parse(text)
	if err != nil || len(p.Hunks) != 1 || len(p.Hunks[0].Chunks) != 2 {
		t.Fatalf("Parse: %v %+v", err, p)
	}
	if _, err := codexPatch("f", "@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n", false); err == nil {
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
