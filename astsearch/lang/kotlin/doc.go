// Package kotlin registers the Kotlin grammar with astsearch, so that a search with
// Lang "kotlin" runs in process. A host links it with a blank import:
//
//	import _ "github.com/harnesskit/harnesskit/astsearch/lang/kotlin"
//
// It imports nothing but the grammar's own Go package, whose C it compiles through cgo:
//
//	github.com/alexaandru/go-sitter-forest/kotlin
//
// Built without cgo it registers nothing and links no C; astsearch then needs the ast-grep
// executable for the language.
package kotlin
