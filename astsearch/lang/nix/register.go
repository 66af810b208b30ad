//go:build cgo

package nix

import (
	grammar "github.com/alexaandru/go-sitter-forest/nix"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("nix", grammar.GetLanguage) }
