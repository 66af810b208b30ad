//go:build cgo

package tsflat

import (
	"unsafe"

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

// The tests of this package cannot import astsearch/lang/all (it imports this package), so
// they register the same grammar packages themselves; lang/all's tests check that its
// packages register these.
func init() {
	for name, lang := range map[string]func() unsafe.Pointer{
		"bash": bash.Language, "c": c.Language, "cpp": cpp.Language, "csharp": csharp.Language,
		"css": css.Language, "elixir": elixir.GetLanguage, "go": golang.Language,
		"haskell": haskell.Language, "html": html.Language, "java": java.Language,
		"javascript": javascript.Language, "json": json.Language, "kotlin": kotlin.GetLanguage,
		"lua": lua.Language, "nix": nix.GetLanguage, "php": php.LanguagePHPOnly,
		"python": python.Language, "ruby": ruby.Language, "rust": rust.Language,
		"scala": scala.Language, "solidity": solidity.GetLanguage, "swift": swift.GetLanguage,
		"tsx": typescript.LanguageTSX, "typescript": typescript.LanguageTypescript,
		"yaml": yaml.Language,
	} {
		Register(name, lang)
	}
}
