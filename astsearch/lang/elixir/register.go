//go:build cgo

package elixir

import (
	grammar "github.com/alexaandru/go-sitter-forest/elixir"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("elixir", grammar.GetLanguage) }
