//go:build cgo

package lua

import (
	grammar "github.com/tree-sitter-grammars/tree-sitter-lua/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("lua", grammar.Language) }
