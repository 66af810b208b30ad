//go:build cgo

package rust

import (
	grammar "github.com/tree-sitter/tree-sitter-rust/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("rust", grammar.Language) }
