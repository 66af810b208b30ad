// Package lua registers the Lua grammar with astsearch, so that a search with
// Lang "lua" runs in process. A host links it with a blank import:
//
//	import _ "github.com/harnesskit/harnesskit/astsearch/lang/lua"
//
// It imports nothing but the grammar's own Go package, whose C it compiles through cgo:
//
//	github.com/tree-sitter-grammars/tree-sitter-lua/bindings/go
//
// Built without cgo it registers nothing and links no C; astsearch then needs the ast-grep
// executable for the language.
package lua
