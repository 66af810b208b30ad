//go:build cgo

package html

import (
	grammar "github.com/tree-sitter/tree-sitter-html/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("html", grammar.Language) }
