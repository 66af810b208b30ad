// Package typescript registers the TypeScript and TSX grammars with astsearch (ast-grep's
// "typescript" and "tsx"; one grammar module holds both, so one import links both):
//
//	import _ "github.com/harnesskit/harnesskit/astsearch/lang/typescript"
//
// It imports nothing but the grammar's own Go package, whose C it compiles through cgo:
//
//	github.com/tree-sitter/tree-sitter-typescript/bindings/go
//
// astsearch/lang/tsx is this package under the other name. Built without cgo it registers
// nothing and links no C; astsearch then needs the ast-grep executable for the languages.
package typescript
