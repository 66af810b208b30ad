package patch_test

import (
	"runtime"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// The two spellings of "café.txt": precomposed é (NFC) and e + combining acute (NFD).
const (
	cafeNFC = "caf\u00e9.txt"
	cafeNFD = "cafe\u0301.txt"
)

// TestApplyNFCNFDPair: two names that differ only in Unicode normalisation are one file on
// macOS (APFS and HFS+ compare names normalised), so a patch that names both is refused as
// a path conflict before anything is written, on every system — whichever section comes
// first, for Add, Update and Move, and for a directory name as well as a file name (two
// different files under two spellings of one directory are two files anywhere, and pass).
// Names that differ in case alone stay the planner's business (on a case-sensitive volume
// they are two files).
func TestApplyNFCNFDPair(t *testing.T) {
	conflict := []string{"differ only in Unicode normalisation", "macOS stores them as one file", "name each file one way"}
	// Café (NFD) and café (NFC): two files where case matters (Linux), one file on a
	// volume that also ignores case.
	caseAndNorm, caseAndNormWant := patch.Kind(0), map[string]string{"Cafe\u0301.txt": "one\n", cafeNFC: "two\n"}
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		caseAndNorm, caseAndNormWant = patch.KindPathConflict, nil
	}
	apRun(t, []apCase{
		{
			name:  "add_nfc_then_add_nfd",
			patch: apText("*** Add File: "+cafeNFC, "+one", "*** Add File: "+cafeNFD, "+two"),
			kind:  patch.KindPathConflict, msg: append(conflict, cafeNFD, cafeNFC),
		},
		{
			name:  "add_nfd_then_add_nfc",
			patch: apText("*** Add File: "+cafeNFD, "+one", "*** Add File: "+cafeNFC, "+two"),
			kind:  patch.KindPathConflict, msg: conflict,
		},
		{
			name:  "update_existing_then_add_other_spelling",
			files: map[string]string{cafeNFC: "old\n"},
			patch: apText("*** Update File: "+cafeNFC, "@@", "-old", "+new", "*** Add File: "+cafeNFD, "+other"),
			kind:  patch.KindPathConflict, msg: conflict,
		},
		{
			name:  "move_onto_other_spelling_of_an_added_file",
			files: map[string]string{"a.txt": "a\n"},
			patch: apText("*** Add File: "+cafeNFC, "+one", "*** Update File: a.txt", "*** Move to: "+cafeNFD, "@@", "-a", "+b"),
			kind:  patch.KindPathConflict, msg: conflict,
		},
		{
			name:  "directory_names_differ",
			patch: apText("*** Add File: r\u00e9sum\u00e9/a.txt", "+one", "*** Add File: re\u0301sume\u0301/a.txt", "+two"),
			kind:  patch.KindPathConflict, msg: conflict,
		},
		{
			name:  "two_files_under_two_spellings_of_a_directory",
			patch: apText("*** Add File: r\u00e9sum\u00e9/a.txt", "+one", "*** Add File: re\u0301sume\u0301/b.txt", "+two"),
			want:  map[string]string{"r\u00e9sum\u00e9/a.txt": "one\n", "re\u0301sume\u0301/b.txt": "two\n"},
		},
		{
			name:  "one_spelling_twice_is_not_this_conflict",
			files: map[string]string{cafeNFC: "old\n"},
			patch: apText("*** Update File: "+cafeNFC, "@@", "-old", "+mid", "*** Update File: "+cafeNFC, "@@", "-mid", "+new"),
			want:  map[string]string{cafeNFC: "new\n"},
		},
		{
			name:  "nfc_names_of_two_files",
			patch: apText("*** Add File: "+cafeNFC, "+one", "*** Add File: caf\u00e8.txt", "+two"),
			want:  map[string]string{cafeNFC: "one\n", "caf\u00e8.txt": "two\n"},
		},
		{
			name:  "case_and_normalisation",
			patch: apText("*** Add File: Cafe\u0301.txt", "+one", "*** Add File: "+cafeNFC, "+two"),
			kind:  caseAndNorm, want: caseAndNormWant,
		},
	})
}
