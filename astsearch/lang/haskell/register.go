//go:build cgo

package haskell

import (
	grammar "github.com/tree-sitter/tree-sitter-haskell/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("haskell", grammar.Language) }
