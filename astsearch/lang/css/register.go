//go:build cgo

package css

import (
	grammar "github.com/tree-sitter/tree-sitter-css/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("css", grammar.Language) }
