//go:build cgo

package yaml

import (
	grammar "github.com/tree-sitter-grammars/tree-sitter-yaml/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("yaml", grammar.Language) }
