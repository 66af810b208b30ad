package astsearch

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Lang is a language's canonical name, as ast-grep's --lang spells it.
type Lang string

// langModule is the import path of the packages that register grammars.
const langModule = "github.com/harnesskit/harnesskit/astsearch/lang"

// The 25 languages of ast-grep. Each has a native grammar (see [Native]) in a program that
// imports its package, [Lang.ImportPath].
const (
	Bash       Lang = "bash"
	C          Lang = "c"
	Cpp        Lang = "cpp"
	CSharp     Lang = "csharp"
	CSS        Lang = "css"
	Elixir     Lang = "elixir"
	Go         Lang = "go"
	Haskell    Lang = "haskell"
	HTML       Lang = "html"
	Java       Lang = "java"
	JavaScript Lang = "javascript"
	JSON       Lang = "json"
	Kotlin     Lang = "kotlin"
	Lua        Lang = "lua"
	Nix        Lang = "nix"
	PHP        Lang = "php"
	Python     Lang = "python"
	Ruby       Lang = "ruby"
	Rust       Lang = "rust"
	Scala      Lang = "scala"
	Solidity   Lang = "solidity"
	Swift      Lang = "swift"
	TypeScript Lang = "typescript"
	TSX        Lang = "tsx"
	YAML       Lang = "yaml"
)

type langInfo struct {
	display string
	aliases []string
	exts    []string
	expando rune
}

var langTable = map[Lang]langInfo{
	Bash:       {"Bash", nil, []string{"bash", "bats", "cgi", "command", "env", "fcgi", "ksh", "sh", "tmux", "tool", "zsh"}, '$'},
	C:          {"C", nil, []string{"c", "h"}, '\U00010000'},
	Cpp:        {"Cpp", []string{"cc", "c++", "cxx"}, []string{"cc", "hpp", "cpp", "c++", "hh", "cxx", "cu", "ino"}, '\U00010000'},
	CSharp:     {"CSharp", []string{"cs"}, []string{"cs"}, 'µ'},
	CSS:        {"Css", nil, []string{"css", "scss"}, '_'},
	Elixir:     {"Elixir", []string{"ex"}, []string{"ex", "exs"}, 'µ'},
	Go:         {"Go", []string{"golang"}, []string{"go"}, 'µ'},
	Haskell:    {"Haskell", []string{"hs"}, []string{"hs"}, 'µ'},
	HTML:       {"Html", nil, []string{"html", "htm", "xhtml"}, 'z'},
	Java:       {"Java", nil, []string{"java"}, '$'},
	JavaScript: {"JavaScript", []string{"js", "jsx"}, []string{"cjs", "js", "mjs", "jsx"}, '$'},
	JSON:       {"Json", nil, []string{"json"}, '$'},
	Kotlin:     {"Kotlin", []string{"kt"}, []string{"kt", "ktm", "kts"}, 'µ'},
	Lua:        {"Lua", nil, []string{"lua"}, '$'},
	Nix:        {"Nix", nil, []string{"nix"}, '_'},
	PHP:        {"Php", nil, []string{"php"}, 'µ'},
	Python:     {"Python", []string{"py"}, []string{"py", "py3", "pyi", "bzl", "bazel"}, 'µ'},
	Ruby:       {"Ruby", []string{"rb"}, []string{"rb", "rbw", "gemspec"}, 'µ'},
	Rust:       {"Rust", []string{"rs"}, []string{"rs"}, 'µ'},
	Scala:      {"Scala", nil, []string{"scala", "sc", "sbt"}, '$'},
	Solidity:   {"Solidity", []string{"sol"}, []string{"sol"}, '$'},
	Swift:      {"Swift", nil, []string{"swift"}, 'µ'},
	TypeScript: {"TypeScript", []string{"ts"}, []string{"ts", "cts", "mts"}, '$'},
	TSX:        {"Tsx", nil, []string{"tsx"}, '$'},
	YAML:       {"Yaml", []string{"yml"}, []string{"yaml", "yml"}, '$'},
}

// Langs returns the 25 languages, sorted by name.
func Langs() []Lang {
	out := make([]Lang, 0, len(langTable))
	for l := range langTable {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// ParseLang returns the language a name or alias stands for, case-insensitively
// ("golang" → Go, "TS" → TypeScript). An unknown name gives an error wrapping
// [ErrUnknownLang] that lists the valid names.
func ParseLang(name string) (Lang, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if _, ok := langTable[Lang(n)]; ok {
		return Lang(n), nil
	}
	for l, info := range langTable {
		if slices.Contains(info.aliases, n) {
			return l, nil
		}
	}
	names := make([]string, 0, len(langTable))
	for _, l := range Langs() {
		names = append(names, string(l))
	}
	return "", fmt.Errorf("%w: %q; use one of: %s", ErrUnknownLang, name, strings.Join(names, ", "))
}

// LangForPath returns the language of a file by its extension, using ast-grep's table; ".h"
// is C.
func LangForPath(name string) (Lang, bool) {
	ext := strings.TrimPrefix(path.Ext(name), ".")
	if ext == "" {
		return "", false
	}
	for _, l := range Langs() {
		if slices.Contains(langTable[l].exts, ext) {
			return l, true
		}
	}
	return "", false
}

// Extensions returns the file extensions (without dots) searched for the language.
func (l Lang) Extensions() []string { return slices.Clone(langTable[l].exts) }

// ImportPath returns the package that links the language's grammar into a program when
// imported ("github.com/harnesskit/harnesskit/astsearch/lang/golang" for Go, the package
// named after the language otherwise), or "" for a name that is not one of the 25.
func (l Lang) ImportPath() string {
	switch {
	case !l.valid():
		return ""
	case l == Go:
		return langModule + "/golang"
	}
	return langModule + "/" + string(l)
}

// DisplayName returns the name ast-grep prints in its JSON "language" field ("Go", "Tsx",
// "CSharp").
func (l Lang) DisplayName() string { return langTable[l].display }

func (l Lang) valid() bool { _, ok := langTable[l]; return ok }

func (l Lang) hasExt(name string) bool {
	ext := strings.TrimPrefix(path.Ext(name), ".")
	return ext != "" && slices.Contains(langTable[l].exts, ext)
}
