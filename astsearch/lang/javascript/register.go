//go:build cgo

package javascript

import (
	grammar "github.com/tree-sitter/tree-sitter-javascript/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("javascript", grammar.Language) }
