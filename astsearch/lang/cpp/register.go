//go:build cgo

package cpp

import (
	grammar "github.com/tree-sitter/tree-sitter-cpp/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("cpp", grammar.Language) }
