package patch

import (
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// foldsCase is whether names are compared case-insensitively along with their Unicode
// normalisation: the volumes macOS and Windows create by default ignore case.
var foldsCase = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// oneNormalization refuses a patch that names one file with two spellings that differ in
// Unicode normalisation, such as "café" precomposed (NFC) and decomposed (NFD): macOS
// stores both as one file (APFS and HFS+ compare names normalised), so two Add File
// sections would write one file twice, the second over the first. Names are compared
// as real paths put in NFC, and case-folded where the volume ignores case (fold); a pair
// that differs only in case is left to the planner, which asks the file system whether the
// two are one file (a case-only rename is legitimate there). The refusal holds on every
// system — on Linux the two names are two files, but a patch that means both is a mistake
// a model makes, not an intent — so a patch's outcome does not depend on the volume.
func oneNormalization(p *Patch, paths map[string]resolved, fold bool) error {
	type named struct{ real, path string }
	seen := map[string]named{}
	for i, h := range p.Hunks {
		for _, name := range []string{h.Path, h.MoveTo} {
			r, ok := paths[name]
			if name == "" || !ok || r.real == "" {
				continue
			}
			key := norm.NFC.String(r.real)
			if fold {
				key = strings.ToLower(key)
			}
			first, ok := seen[key]
			switch {
			case !ok:
				seen[key] = named{r.real, name}
				continue
			case first.real == r.real, fold && strings.EqualFold(first.real, r.real):
				continue // one spelling, or another case only: the other checks decide
			}
			how := "Unicode normalisation (precomposed NFC or decomposed NFD characters)"
			if fold && norm.NFC.String(first.real) != norm.NFC.String(r.real) {
				how += " and case"
			}
			return &Error{Kind: KindPathConflict, Path: name, Line: h.Line, Section: i + 1,
				Msg: fmt.Sprintf("%s and %s, named by an earlier section, differ only in %s: macOS stores them as one file, so one would overwrite the other; name each file one way in a patch",
					name, first.path, how)}
		}
	}
	return nil
}
