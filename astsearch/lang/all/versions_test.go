//go:build cgo

package all_test

import (
	"testing"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

// astGrepGrammars are the grammars linked into ast-grep 0.51.1 (the npm package's Linux
// x86-64 binary), read from the binary itself: each tree_sitter_<lang>() symbol's TSLanguage
// gives its ABI, its node kinds (symbols and aliases, as ts_language_symbol_count counts
// them), its parse states and, for ABI 15, its recorded version.
var astGrepGrammars = map[string]tsflat.Info{
	"bash":       {ABI: 15, Version: "0.25.1", Symbols: 280, States: 7571},
	"c":          {ABI: 15, Version: "0.24.2", Symbols: 363, States: 2015},
	"cpp":        {ABI: 14, Symbols: 543, States: 8637},
	"csharp":     {ABI: 15, Version: "0.23.5", Symbols: 533, States: 8053},
	"css":        {ABI: 15, Version: "0.25.0", Symbols: 151, States: 442},
	"elixir":     {ABI: 14, Symbols: 235, States: 7001},
	"go":         {ABI: 15, Version: "0.25.0", Symbols: 219, States: 1442},
	"haskell":    {ABI: 15, Version: "0.24.1", Symbols: 552, States: 12862},
	"html":       {ABI: 14, Symbols: 41, States: 94},
	"java":       {ABI: 14, Symbols: 321, States: 1385},
	"javascript": {ABI: 15, Version: "0.25.0", Symbols: 265, States: 1870},
	"json":       {ABI: 14, Symbols: 25, States: 32},
	"kotlin":     {ABI: 14, Symbols: 378, States: 10180},
	"lua":        {ABI: 15, Version: "0.5.0", Symbols: 143, States: 282},
	"nix":        {ABI: 13, Symbols: 108, States: 541},
	"php":        {ABI: 15, Version: "0.25.1", Symbols: 429, States: 3385},
	"python":     {ABI: 15, Version: "0.25.0", Symbols: 274, States: 2786},
	"ruby":       {ABI: 14, Symbols: 351, States: 5989},
	"rust":       {ABI: 15, Version: "0.24.1", Symbols: 355, States: 3825},
	"scala":      {ABI: 15, Version: "0.26.4", Symbols: 462, States: 18306},
	"solidity":   {ABI: 15, Version: "1.2.13", Symbols: 531, States: 977},
	"swift":      {ABI: 15, Version: "0.7.4", Symbols: 572, States: 11522},
	"tsx":        {ABI: 14, Symbols: 400, States: 5986},
	"typescript": {ABI: 14, Symbols: 383, States: 5870},
	"yaml":       {ABI: 14, Symbols: 301, States: 1579},
}

// skewed are the languages whose grammar is another release than ast-grep's, because
// ast-grep's is not published as a Go module (the package doc of astsearch says which).
var skewed = map[string]bool{"kotlin": true, "nix": true, "php": true, "scala": true, "solidity": true, "swift": true}

// TestGrammarVersions: the packages under astsearch/lang register all 25 languages, and
// every grammar not skewed has ast-grep's tables (the same symbol and
// parse-state counts; haskell's recorded version differs, its tables do not), and a skewed
// one does not (if it did, the docs would be wrong).
func TestGrammarVersions(t *testing.T) {
	if got := tsflat.Languages(); len(got) != len(astGrepGrammars) {
		t.Errorf("lang/all registers %d languages, want ast-grep's %d: %v", len(got), len(astGrepGrammars), got)
	}
	for name := range astGrepGrammars {
		got, ok := tsflat.GrammarInfo(name)
		want := astGrepGrammars[name]
		if !ok || want.Symbols == 0 {
			t.Errorf("%s: no grammar here (%v) or no ast-grep figures", name, ok)
			continue
		}
		same := got.Symbols == want.Symbols && got.States == want.States
		t.Logf("%-10s ours ABI %d %-6s %3d symbols %5d states; ast-grep ABI %d %-6s %3d %5d", name, got.ABI, got.Version, got.Symbols, got.States, want.ABI, want.Version, want.Symbols, want.States)
		if same == skewed[name] {
			t.Errorf("%s: tables the same as ast-grep's: %v, but listed as skewed: %v", name, same, skewed[name])
		}
		if got.ABI < 13 || got.ABI > 15 {
			t.Errorf("%s: ABI %d outside what the runtime loads (13-15)", name, got.ABI)
		}
	}
}
