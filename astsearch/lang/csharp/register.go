//go:build cgo

package csharp

import (
	grammar "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("csharp", grammar.Language) }
