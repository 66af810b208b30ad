// Package php registers the PHP grammar with astsearch, so that a search with Lang "php"
// runs in process. It is the grammar's php_only variant (PHP without the HTML around it),
// the one ast-grep parses with. A host links it with a blank import:
//
//	import _ "github.com/harnesskit/harnesskit/astsearch/lang/php"
//
// It imports nothing but the grammar's own Go package, whose C it compiles through cgo:
//
//	github.com/tree-sitter/tree-sitter-php/bindings/go
//
// Built without cgo it registers nothing and links no C; astsearch then needs the ast-grep
// executable for the language.
package php
