package wfs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"path/filepath"
	"regexp"
	"unicode/utf8"
)

// maxStem is how much of the target's name a temporary name keeps: with a suffix of at most
// MaxSuffix bytes a temporary name has at most 1+200+4+16+32 = 253 bytes, within the 255
// bytes of NAME_MAX on every system.
const maxStem = 200

// Suffixes of the temporaries a commit makes.
const (
	suffixNew   = ".tmp" // the new content of a target
	suffixAside = ".old" // the old file of a target, kept until the commit is done
)

// TempName returns a fresh hidden name (≤ 253 bytes) next to target, such as
// ".main.go.hk-9f3a01c2d4e5f607.tmp": 16 hex digits from rnd (nil: crypto/rand) and suffix
// ("" or ".…", at most [MaxSuffix] bytes).
func TempName(target, suffix string, rnd io.Reader) (string, error) {
	if err := checkSuffix(suffix); err != nil {
		return "", err
	}
	if rnd == nil {
		rnd = rand.Reader
	}
	var b [8]byte
	if _, err := io.ReadFull(rnd, b[:]); err != nil {
		return "", err
	}
	base := filepath.Base(target)
	if len(base) > maxStem {
		cut := maxStem
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	return filepath.Join(filepath.Dir(target), "."+base+".hk-"+hex.EncodeToString(b[:])+suffix), nil
}

var errSuffix = errors.New("wfs: a temporary name's suffix must be empty or start with '.', have at most 32 bytes and no separator")

func checkSuffix(s string) error {
	if s == "" {
		return nil
	}
	if len(s) > MaxSuffix || s[0] != '.' || !suffixRE.MatchString(s) {
		return errSuffix
	}
	return nil
}

var suffixRE = regexp.MustCompile(`^\.[^/\\\x00]*$`)

// leftover matches the temporaries of this package (TempName) and those of earlier releases
// of patch (".x.hkpatch-8hex.tmp") and format (".x.hkfmt-…").
var leftover = regexp.MustCompile(`^\.(?:.*\.)?hk-[0-9a-f]{16}(?:\.[^/\\]{0,31})?$|^\..+\.hkpatch-[0-9a-f]{8}\.tmp$|^\.?.+\.hkfmt-[0-9A-Za-z]+(?:\.[^/\\]*)?$`)

// IsLeftover reports whether base is a harnesskit temporary ([TempName], or an older
// ".x.hkpatch-…"/".x.hkfmt-…") that a crash left: remove it once no writer runs.
func IsLeftover(base string) bool { return leftover.MatchString(base) }
