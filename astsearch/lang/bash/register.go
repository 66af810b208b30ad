//go:build cgo

package bash

import (
	grammar "github.com/tree-sitter/tree-sitter-bash/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("bash", grammar.Language) }
