//go:build cgo

package kotlin

import (
	grammar "github.com/alexaandru/go-sitter-forest/kotlin"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("kotlin", grammar.GetLanguage) }
