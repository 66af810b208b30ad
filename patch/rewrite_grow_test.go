package patch

import (
	"math/bits"
	"testing"

	"pgregory.net/rapid"
)

// TestGrowFindsSmallestWithFewTrials: for a monotone predicate (false below a threshold, true
// from it on), grow returns the threshold when it is within the limit and reports not found
// otherwise, with at most 2·⌈log2(limit)⌉+2 trials. This is what keeps Rewrite's context search
// from trying one length per line (cubic on files of repeated lines).
func TestGrowFindsSmallestWithFewTrials(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		limit := rapid.IntRange(-2, 1_000_000).Draw(t, "limit")
		threshold := rapid.IntRange(1, 1_100_000).Draw(t, "threshold")
		trials := 0
		k, found := grow(limit, func(k int) bool {
			trials++
			if k < 1 || k > limit {
				t.Fatalf("tried %d outside 1..%d", k, limit)
			}
			return k >= threshold
		})
		switch {
		case limit < 1:
			if found || trials != 0 {
				t.Fatalf("limit %d: found %v after %d trials", limit, found, trials)
			}
			return
		case threshold <= limit:
			if !found || k != threshold {
				t.Fatalf("limit %d threshold %d: got %d, %v", limit, threshold, k, found)
			}
		default:
			if found {
				t.Fatalf("limit %d threshold %d: found %d", limit, threshold, k)
			}
		}
		if most := 2*bits.Len(uint(limit)) + 2; trials > most {
			t.Fatalf("limit %d threshold %d: %d trials, more than %d", limit, threshold, trials, most)
		}
	})
}
