//go:build cgo

package tsflat

/*
#include "flatten.h"
const TSLanguage *tree_sitter_bash(void);
const TSLanguage *tree_sitter_c(void);
const TSLanguage *tree_sitter_cpp(void);
const TSLanguage *tree_sitter_c_sharp(void);
const TSLanguage *tree_sitter_css(void);
const TSLanguage *tree_sitter_elixir(void);
const TSLanguage *tree_sitter_go(void);
const TSLanguage *tree_sitter_html(void);
const TSLanguage *tree_sitter_java(void);
const TSLanguage *tree_sitter_javascript(void);
const TSLanguage *tree_sitter_kotlin(void);
const TSLanguage *tree_sitter_python(void);
const TSLanguage *tree_sitter_ruby(void);
const TSLanguage *tree_sitter_rust(void);
const TSLanguage *tree_sitter_scala(void);
const TSLanguage *tree_sitter_swift(void);
const TSLanguage *tree_sitter_typescript(void);
const TSLanguage *tree_sitter_tsx(void);
const TSLanguage *tree_sitter_yaml(void);
*/
import "C"

import (
	"unsafe"

	// The runtime and the grammars' compiled C; their Go APIs are not used.
	_ "github.com/smacker/go-tree-sitter"
	_ "github.com/smacker/go-tree-sitter/bash"
	_ "github.com/smacker/go-tree-sitter/c"
	_ "github.com/smacker/go-tree-sitter/cpp"
	_ "github.com/smacker/go-tree-sitter/csharp"
	_ "github.com/smacker/go-tree-sitter/css"
	_ "github.com/smacker/go-tree-sitter/elixir"
	_ "github.com/smacker/go-tree-sitter/golang"
	_ "github.com/smacker/go-tree-sitter/html"
	_ "github.com/smacker/go-tree-sitter/java"
	_ "github.com/smacker/go-tree-sitter/javascript"
	_ "github.com/smacker/go-tree-sitter/kotlin"
	_ "github.com/smacker/go-tree-sitter/python"
	_ "github.com/smacker/go-tree-sitter/ruby"
	_ "github.com/smacker/go-tree-sitter/rust"
	_ "github.com/smacker/go-tree-sitter/scala"
	_ "github.com/smacker/go-tree-sitter/swift"
	_ "github.com/smacker/go-tree-sitter/typescript/tsx"
	_ "github.com/smacker/go-tree-sitter/typescript/typescript"
	_ "github.com/smacker/go-tree-sitter/yaml"

	// Grammars smacker's module lacks (haskell, json, nix, solidity), or has in a form that
	// parses patterns differently from ast-grep (php: only the HTML-embedding grammar; lua:
	// `$` not accepted in identifiers). They come from the grammars' own Go packages, cgo
	// packages that compile only the grammar's C (never a second tree-sitter runtime, so
	// github.com/tree-sitter/go-tree-sitter must not be imported), all generated for ABI 14,
	// the newest smacker's runtime loads. Each exposes its TSLanguage as an unsafe.Pointer.
	nix "github.com/alexaandru/go-sitter-forest/nix"
	solidity "github.com/alexaandru/go-sitter-forest/solidity"
	lua "github.com/tree-sitter-grammars/tree-sitter-lua/bindings/go"
	haskell "github.com/tree-sitter/tree-sitter-haskell/bindings/go"
	json "github.com/tree-sitter/tree-sitter-json/bindings/go"
	php "github.com/tree-sitter/tree-sitter-php/bindings/go"
)

// moduleGrammar returns the function giving the TSLanguage pointer of a grammar linked
// through its own Go package rather than smacker's, or nil.
func moduleGrammar(name string) func() unsafe.Pointer {
	switch name {
	case "haskell":
		return haskell.Language
	case "json":
		return json.Language
	case "lua":
		return lua.Language
	case "nix":
		return nix.GetLanguage
	case "php":
		return php.LanguagePHPOnly // ast-grep's php is the php_only grammar (no HTML around it)
	case "solidity":
		return solidity.GetLanguage
	}
	return nil
}

// Languages lists the canonical names of the languages with a grammar here, sorted.
func Languages() []string {
	return []string{"bash", "c", "cpp", "csharp", "css", "elixir", "go", "haskell", "html",
		"java", "javascript", "json", "kotlin", "lua", "nix", "php", "python", "ruby", "rust",
		"scala", "solidity", "swift", "tsx", "typescript", "yaml"}
}

func languagePtr(name string) *C.TSLanguage {
	if f := moduleGrammar(name); f != nil {
		return (*C.TSLanguage)(f())
	}
	switch name {
	case "bash":
		return C.tree_sitter_bash()
	case "c":
		return C.tree_sitter_c()
	case "cpp":
		return C.tree_sitter_cpp()
	case "csharp":
		return C.tree_sitter_c_sharp()
	case "css":
		return C.tree_sitter_css()
	case "elixir":
		return C.tree_sitter_elixir()
	case "go":
		return C.tree_sitter_go()
	case "html":
		return C.tree_sitter_html()
	case "java":
		return C.tree_sitter_java()
	case "javascript":
		return C.tree_sitter_javascript()
	case "kotlin":
		return C.tree_sitter_kotlin()
	case "python":
		return C.tree_sitter_python()
	case "ruby":
		return C.tree_sitter_ruby()
	case "rust":
		return C.tree_sitter_rust()
	case "scala":
		return C.tree_sitter_scala()
	case "swift":
		return C.tree_sitter_swift()
	case "typescript":
		return C.tree_sitter_typescript()
	case "tsx":
		return C.tree_sitter_tsx()
	case "yaml":
		return C.tree_sitter_yaml()
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
