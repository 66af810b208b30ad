// Package yaml registers the YAML grammar with astsearch, so that a search with
// Lang "yaml" runs in process. A host links it with a blank import:
//
//	import _ "github.com/harnesskit/harnesskit/astsearch/lang/yaml"
//
// It imports nothing but the grammar's own Go package, whose C it compiles through cgo:
//
//	github.com/tree-sitter-grammars/tree-sitter-yaml/bindings/go
//
// Built without cgo it registers nothing and links no C; astsearch then needs the ast-grep
// executable for the language.
package yaml
