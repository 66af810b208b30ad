//go:build cgo

package tsflat

import (
	"unsafe"

	// Each grammar's own Go package: cgo packages that compile only the grammar's C (its
	// parser tables and external scanner) and hand out its TSLanguage as an unsafe.Pointer.
	// The runtime is github.com/tree-sitter/go-tree-sitter's (imported in tsflat.go).
	// Versions, and why some differ from ast-grep 0.51.1's, are in the package doc of
	// astsearch and in versions_test.go.
	//
	// The cost of a cold build: the tree-sitter/* and tree-sitter-grammars/* packages
	// #include their parser.c in the cgo preamble, so cmd/cgo runs the C compiler over it
	// five times before the compile proper (preprocessing for macros, then twice a
	// kind-guessing pass at -O0 and a DWARF pass at the build's -O level, -O2 by default: the second
	// round asks about the typedefs the first found). Measured on a cold cache, the
	// astsearch test binary: 234 s of CPU, 187 s of it in gcc, 125 s of that in cgo's
	// passes (Scala's grammar alone 46 s); on smacker's module, whose grammars were
	// separate C files compiled once, it was 126 s. CI's two configurations (plain and
	// -race; go test -exec true over both modules, empty GOCACHE, 2 cores): 241 s wall and
	// 470 s of CPU, against 168 s and 324 s on smacker's module. The alexaandru/go-sitter-forest
	// packages ship parser.c as a separate file and are compiled once.
	elixir "github.com/alexaandru/go-sitter-forest/elixir"
	kotlin "github.com/alexaandru/go-sitter-forest/kotlin"
	nix "github.com/alexaandru/go-sitter-forest/nix"
	solidity "github.com/alexaandru/go-sitter-forest/solidity"
	swift "github.com/alexaandru/go-sitter-forest/swift"
	lua "github.com/tree-sitter-grammars/tree-sitter-lua/bindings/go"
	yaml "github.com/tree-sitter-grammars/tree-sitter-yaml/bindings/go"
	bash "github.com/tree-sitter/tree-sitter-bash/bindings/go"
	csharp "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
	c "github.com/tree-sitter/tree-sitter-c/bindings/go"
	cpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	css "github.com/tree-sitter/tree-sitter-css/bindings/go"
	golang "github.com/tree-sitter/tree-sitter-go/bindings/go"
	haskell "github.com/tree-sitter/tree-sitter-haskell/bindings/go"
	html "github.com/tree-sitter/tree-sitter-html/bindings/go"
	java "github.com/tree-sitter/tree-sitter-java/bindings/go"
	javascript "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	json "github.com/tree-sitter/tree-sitter-json/bindings/go"
	php "github.com/tree-sitter/tree-sitter-php/bindings/go"
	python "github.com/tree-sitter/tree-sitter-python/bindings/go"
	ruby "github.com/tree-sitter/tree-sitter-ruby/bindings/go"
	rust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	scala "github.com/tree-sitter/tree-sitter-scala/bindings/go"
	typescript "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// entryPoints maps each canonical language name to its grammar's TSLanguage.
var entryPoints = map[string]func() unsafe.Pointer{
	"bash":       bash.Language,
	"c":          c.Language,
	"cpp":        cpp.Language,
	"csharp":     csharp.Language,
	"css":        css.Language,
	"elixir":     elixir.GetLanguage,
	"go":         golang.Language,
	"haskell":    haskell.Language,
	"html":       html.Language,
	"java":       java.Language,
	"javascript": javascript.Language,
	"json":       json.Language,
	"kotlin":     kotlin.GetLanguage,
	"lua":        lua.Language,
	"nix":        nix.GetLanguage,
	"php":        php.LanguagePHPOnly, // ast-grep's php is the php_only grammar (no HTML around it)
	"python":     python.Language,
	"ruby":       ruby.Language,
	"rust":       rust.Language,
	"scala":      scala.Language,
	"solidity":   solidity.GetLanguage,
	"swift":      swift.GetLanguage,
	"tsx":        typescript.LanguageTSX,
	"typescript": typescript.LanguageTypescript,
	"yaml":       yaml.Language,
}

// Languages lists the canonical names of the languages with a grammar here, sorted.
func Languages() []string {
	return []string{"bash", "c", "cpp", "csharp", "css", "elixir", "go", "haskell", "html",
		"java", "javascript", "json", "kotlin", "lua", "nix", "php", "python", "ruby", "rust",
		"scala", "solidity", "swift", "tsx", "typescript", "yaml"}
}

func languagePtr(name string) unsafe.Pointer {
	if f := entryPoints[name]; f != nil {
		return f()
	}
	return nil
}

func expando(name string) rune {
	switch name {
	case "csharp", "elixir", "go", "haskell", "kotlin", "php", "python", "ruby", "rust", "swift":
		return 'µ'
	case "c", "cpp":
		return '\U00010000'
	case "css", "nix":
		return '_'
	case "html":
		return 'z'
	}
	return '$'
}
