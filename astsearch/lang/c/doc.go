// Package c registers the C grammar with astsearch, so that a search with
// Lang "c" runs in process. A host links it with a blank import:
//
//	import _ "github.com/harnesskit/harnesskit/astsearch/lang/c"
//
// It imports nothing but the grammar's own Go package, whose C it compiles through cgo:
//
//	github.com/tree-sitter/tree-sitter-c/bindings/go
//
// Built without cgo it registers nothing and links no C; astsearch then needs the ast-grep
// executable for the language.
package c
