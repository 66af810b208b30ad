//go:build cgo

package golang

import (
	grammar "github.com/tree-sitter/tree-sitter-go/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("go", grammar.Language) }
