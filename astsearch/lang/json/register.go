//go:build cgo

package json

import (
	grammar "github.com/tree-sitter/tree-sitter-json/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("json", grammar.Language) }
