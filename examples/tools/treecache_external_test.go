package tools_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/astsearch"
	"github.com/harnesskit/harnesskit/examples/tools"
)

// TestTreeCache: the ast_grep tools of one Toolbox share a tree cache; a search that
// repeats reuses the trees, and apply_patch, edit and ast_grep_replace drop the trees of
// the files they write, while the next search sees what they wrote.
func TestTreeCache(t *testing.T) {
	needAstGrep(t)
	if _, err := astsearch.Native(); err != nil {
		t.Skip("the tree cache is the native backend's:", err)
	}
	ctx := context.Background()
	call := func(t *testing.T, b *tools.Toolbox, tool, args string) string {
		t.Helper()
		out, err := b.Tool(tool).Call(ctx, json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s %s: %v", tool, args, err)
		}
		return out
	}
	search := func(t *testing.T, b *tools.Toolbox, pattern string) string {
		t.Helper()
		return call(t, b, "ast_grep_search", `{"pattern":`+quote(pattern)+`,"lang":"go"}`)
	}
	writes := []struct {
		name, tool, args string
		pattern, want    string // a search that must see the write
	}{
		{name: "apply_patch", tool: "apply_patch",
			args:    `{"patchText":"*** Begin Patch\n*** Update File: src/main.go\n@@\n-\tfmt.Println(Greet(\"world\"))\n+\tfmt.Println(Greet(\"patch\"))\n*** End Patch"}`,
			pattern: "Greet($A)", want: `Greet("patch")`},
		{name: "edit", tool: "edit",
			args:    `{"file_path":"src/main.go","old_string":"\"world\"","new_string":"\"edited\""}`,
			pattern: "Greet($A)", want: `Greet("edited")`},
		{name: "ast_grep_replace", tool: "ast_grep_replace",
			args:    `{"pattern":"Greet($A)","rewrite":"Greet2($A)","lang":"go","paths":["src/main.go"],"dryRun":false}`,
			pattern: "Greet2($A)", want: `Greet2("world")`},
	}
	for _, tc := range writes {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := toolbox(t)
			search(t, b, "Greet($$$)")
			s1 := b.TreeCache().Stats()
			if s1.Misses == 0 || s1.Entries == 0 {
				t.Fatalf("first search: %+v; want its trees kept", s1)
			}
			search(t, b, "func $F($$$) $$$")
			s2 := b.TreeCache().Stats()
			if s2.Hits == 0 || s2.Misses != s1.Misses {
				t.Fatalf("second search: %+v after %+v; want every tree from the cache", s2, s1)
			}
			call(t, b, tc.tool, tc.args)
			s3 := b.TreeCache().Stats()
			if s3.Entries != s2.Entries-1 {
				t.Errorf("after %s wrote src/main.go: %d trees, want %d (its tree dropped)", tc.tool, s3.Entries, s2.Entries-1)
			}
			if out := search(t, b, tc.pattern); !strings.Contains(out, tc.want) {
				t.Errorf("the search after %s does not see the write:\n%s", tc.tool, out)
			}
		})
	}
	t.Run("off", func(t *testing.T) {
		b, _ := toolbox(t, tools.WithTreeCache(0))
		search(t, b, "Greet($$$)")
		search(t, b, "Greet($$$)")
		if s := b.TreeCache().Stats(); s != (astsearch.TreeCacheStats{}) {
			t.Errorf("WithTreeCache(0): %+v; want nothing kept or counted", s)
		}
	})
	t.Run("host forgets", func(t *testing.T) {
		b, dir := toolbox(t)
		search(t, b, "Greet($$$)")
		n := b.TreeCache().Stats().Entries
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			t.Fatal(err)
		}
		b.TreeCache().Forget(filepath.Join(real, "src", "greet.go"))
		if got := b.TreeCache().Stats().Entries; got != n-1 {
			t.Errorf("after Forget: %d trees, want %d", got, n-1)
		}
	})
}
