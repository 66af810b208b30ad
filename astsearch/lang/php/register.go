//go:build cgo

package php

import (
	grammar "github.com/tree-sitter/tree-sitter-php/bindings/go"

	"github.com/harnesskit/harnesskit/astsearch/internal/tsflat"
)

func init() { tsflat.Register("php", grammar.LanguagePHPOnly) }
