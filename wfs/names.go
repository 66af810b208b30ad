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

// JournalDir is the name of the directory, directly under a tree's root, that holds the
// journals of commits in progress (see the package documentation). A commit creates it when
// it needs it and removes it when it is empty again.
const JournalDir = ".hkwfs"

// Limits of the temporary-name scheme: the target's name is cut to maxStem bytes and a
// caller's suffix may have at most MaxSuffix, so that a temporary name has at most
// 1+200+4+16+32 = 253 bytes, within the 255 bytes of NAME_MAX on every system.
const (
	maxStem = 200
	// MaxSuffix is the longest suffix [TempName] and [Tx.Scratch] accept, in bytes.
	MaxSuffix = 32
)

// Suffixes of the temporaries a commit makes.
const (
	suffixNew   = ".tmp" // the new content of a target
	suffixAside = ".old" // the old file of a target, kept until the commit is done
)

// TempName returns a fresh temporary name next to target: "." + target's name (cut to 200
// bytes on a UTF-8 boundary) + ".hk-" + 16 random hex digits (from rnd, crypto/rand when
// nil) + suffix, for example ".main.go.hk-9f3a01c2d4e5f607.tmp". The name is hidden, at most
// 253 bytes long, and recognised by [IsLeftover]. suffix is "" or starts with "." and has at
// most [MaxSuffix] bytes and no separator; a formatter's scratch copy passes the file's
// extension, so the tool still sees the language.
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

// IsLeftover reports whether base, a file name without directory, is a temporary of some
// harnesskit writer: new content, an old file kept aside, or a formatter's scratch copy (see
// [TempName]); also the temporaries of earlier patch (".x.hkpatch-<8 hex>.tmp") and format
// (".x.hkfmt-…") releases. A commit removes its own temporaries, also when it fails, and
// [Recover] removes those of a commit interrupted by a crash; one is left only by a crash
// whose journal was lost with the power (a one-file commit does not sync its journal). A
// host may remove a leftover once no writer runs.
func IsLeftover(base string) bool { return leftover.MatchString(base) }
