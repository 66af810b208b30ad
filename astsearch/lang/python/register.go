//go:build cgo

package python

import (
	grammar "github.com/tree-sitter/tree-sitter-python/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("python", grammar.Language) }
