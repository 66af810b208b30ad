// Package elixir registers the Elixir grammar with astsearch, so that a search with
// Lang "elixir" runs in process. A host links it with a blank import:
//
//	import _ "github.com/harnesskit/harnesskit/astsearch/lang/elixir"
//
// It imports nothing but the grammar's own Go package, whose C it compiles through cgo:
//
//	github.com/alexaandru/go-sitter-forest/elixir
//
// Built without cgo it registers nothing and links no C; astsearch then needs the ast-grep
// executable for the language.
package elixir
