//go:build cgo

package scala

import (
	grammar "github.com/tree-sitter/tree-sitter-scala/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("scala", grammar.Language) }
