//go:build cgo

package solidity

import (
	grammar "github.com/alexaandru/go-sitter-forest/solidity"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("solidity", grammar.GetLanguage) }
