//go:build cgo

package typescript

import (
	grammar "github.com/tree-sitter/tree-sitter-typescript/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() {
	tsflat.Register("typescript", grammar.LanguageTypescript)
	tsflat.Register("tsx", grammar.LanguageTSX)
}
