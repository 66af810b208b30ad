//go:build cgo

package c

import (
	grammar "github.com/tree-sitter/tree-sitter-c/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("c", grammar.Language) }
