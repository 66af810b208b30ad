//go:build cgo

package ruby

import (
	grammar "github.com/tree-sitter/tree-sitter-ruby/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("ruby", grammar.Language) }
