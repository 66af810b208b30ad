// Package all registers the grammars of all 25 languages of astsearch, for a program that
// searches whatever it is given (the harnesskit CLI and MCP server do):
//
//	import _ "github.com/harnesskit/harnesskit/astsearch/lang/all"
//
// Each grammar is compiled through cgo on a program's first build, about four minutes of
// CPU from an empty build cache for the 25 (see the table in the package doc of astsearch);
// a host that searches a few languages imports their packages instead.
package all

import (
	_ "github.com/harnesskit/harnesskit/astsearch/lang/bash"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/c"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/cpp"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/csharp"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/css"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/elixir"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/golang"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/haskell"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/html"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/java"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/javascript"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/json"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/kotlin"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/lua"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/nix"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/php"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/python"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/ruby"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/rust"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/scala"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/solidity"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/swift"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/tsx"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/typescript"
	_ "github.com/harnesskit/harnesskit/astsearch/lang/yaml"
)
