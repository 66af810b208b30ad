//go:build cgo

package swift

import (
	grammar "github.com/alexaandru/go-sitter-forest/swift"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("swift", grammar.GetLanguage) }
