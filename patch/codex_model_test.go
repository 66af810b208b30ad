package patch

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestCodexModelEndOfFile pins the internal Codex model's end-of-file rule to what the Codex
// 0.171.0 binary does (the same inputs are checked against the binary in
// TestCodexOracleReference): only the last position is tried, and only when it is not above
// the cursor that earlier chunks or the chunk's own "@@" line left.
func TestCodexModelEndOfFile(t *testing.T) {
	tests := []struct {
		name, file, body string
		want             string // "" = Codex fails
	}{
		{name: "last_position_only", file: "x\ny\nx\n", body: "@@\n-x\n+X\n*** End of File\n", want: "x\ny\nX\n"},
		{name: "not_at_end_fails", file: "x\ny\nx\nz\n", body: "@@\n-x\n+X\n*** End of File\n"},
		{name: "window_at_cursor", file: "a\nb\nc\n", body: "@@\n a\n@@\n b\n-c\n+C\n*** End of File\n", want: "a\nb\nC\n"},
		{name: "window_above_cursor_after_chunk", file: "a\nb\nc\n", body: "@@\n a\n b\n@@\n b\n-c\n+C\n*** End of File\n"},
		{name: "window_above_cursor_after_anchor", file: "a\nb\nc\nA\nq\n", body: "@@ A\n A\n-q\n+Q\n*** End of File\n"},
		{name: "anchor_above_window", file: "a\nb\nc\nd\nA\n", body: "@@ b\n c\n-d\n+D\n A\n*** End of File\n", want: "a\nb\nc\nD\nA\n"},
		{name: "anchor_below_window", file: "a\nb\nc\nd\nA\n", body: "@@ A\n c\n-d\n+D\n A\n*** End of File\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tree := codexTree{"a.txt": []byte(tc.file)}
			err := codexApply(tree, "*** Begin Patch\n*** Update File: a.txt\n"+tc.body+"*** End Patch\n")
			switch {
			case tc.want == "" && err == nil:
				t.Fatalf("the model applied the chunk (%q); Codex fails", tree["a.txt"])
			case tc.want != "" && err != nil:
				t.Fatalf("the model failed (%v); Codex gives %q", err, tc.want)
			case tc.want != "" && string(tree["a.txt"]) != tc.want:
				t.Fatalf("the model gives %q; Codex gives %q", tree["a.txt"], tc.want)
			}
		})
	}
}

// TestRewriteFallbackReaches checks the forms Rewrite falls back to when a section it
// rendered chunk by chunk would not reach the planned lines under Codex's model: the whole-file
// chunk always reaches them, and the minimal line difference does whenever codexReaches says
// so (which Rewrite checks before using it); codexReaches itself rejects a rendering that
// gives other lines.
func TestRewriteFallbackReaches(t *testing.T) {
	vocab := []string{"a", "b", "", "  a", "a ", "}", "*** End of File", "-x", "+y", "@@ a"}
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SliceOfN(rapid.SampledFrom(vocab), 0, 12).Draw(t, "a")
		b := rapid.SliceOfN(rapid.SampledFrom(vocab), 0, 12).Draw(t, "b")
		if !codexReaches(a, wholeLineChunk(a, b), b) {
			t.Fatalf("the whole-file chunk does not reach %q from %q", b, a)
		}
		mc := minimalLineChunks(a, b)
		if codexReaches(a, mc, b) {
			got, err := codexModelLines(a, mc)
			if err != nil || !slices.Equal(got, b) {
				t.Fatalf("codexReaches accepted chunks that give %q (%v), want %q", got, err, b)
			}
		}
		if !slices.Equal(a, b) && codexReaches(a, wholeLineChunk(a, a), b) {
			t.Fatalf("codexReaches accepted a no-op rendering for a change from %q to %q", a, b)
		}
	})
}

// codexModelLines applies chunks to lines through the text Codex reads and its model.
func codexModelLines(lines []string, chunks []Chunk) ([]string, error) {
	content := ""
	for _, l := range lines {
		content += l + "\n"
	}
	tree := codexTree{"f": []byte(content)}
	if err := codexApply(tree, Format(&Patch{Hunks: []Hunk{{Kind: UpdateFile, Path: "f", Chunks: chunks}}})); err != nil {
		return nil, err
	}
	return codexLines(tree["f"]), nil
}

// TestMinimalLineChunksMinimal: the minimal line difference removes and inserts exactly the
// lines outside a longest common subsequence (counted here by the textbook table), and each
// chunk is anchored on the non-blank line before it.
func TestMinimalLineChunksMinimal(t *testing.T) {
	vocab := []string{"a", "b", "", "c", "  a"}
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SliceOfN(rapid.SampledFrom(vocab), 0, 14).Draw(t, "a")
		b := rapid.SliceOfN(rapid.SampledFrom(vocab), 0, 14).Draw(t, "b")
		if slices.Equal(a, b) {
			return
		}
		dp := make([][]int, len(a)+1)
		for i := range dp {
			dp[i] = make([]int, len(b)+1)
		}
		for i := len(a) - 1; i >= 0; i-- {
			for j := len(b) - 1; j >= 0; j-- {
				if a[i] == b[j] {
					dp[i][j] = dp[i+1][j+1] + 1
				} else {
					dp[i][j] = max(dp[i+1][j], dp[i][j+1])
				}
			}
		}
		changed := 0
		for _, c := range minimalLineChunks(a, b) {
			for _, l := range c.Lines {
				if l.Op != Context {
					changed++
				}
			}
		}
		if want := len(a) + len(b) - 2*dp[0][0]; changed != want {
			t.Fatalf("%d lines removed or inserted from %q to %q, want %d", changed, a, b, want)
		}
	})
}
