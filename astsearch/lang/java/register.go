//go:build cgo

package java

import (
	grammar "github.com/tree-sitter/tree-sitter-java/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("java", grammar.Language) }
