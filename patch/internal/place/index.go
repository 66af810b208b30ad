package place

import (
	"hash/maphash"
	"slices"
	"strings"
)

// lineIndex answers "where does this pattern match at level L" for one file version. For each
// level it computes the normalised form of every line once and a hash index from normalised
// text to its positions, lazily, the first time the level is used.
type lineIndex struct {
	lines  []string
	bom    bool // the file had a BOM: a leading U+FEFF on a pattern's line 0 is ignored
	levels [LevelUnicodeTrim + 1]*levelIndex
	// sub, when set, maps each line of the section's patch to its exact positions in the
	// file (see restrictExact).
	sub map[string][]int32
	// compares counts the line comparisons made through matchesAt and lineMatches, so that
	// tests can check the work bounds against an independent count.
	compares int64
}

// A levelIndex maps the 64-bit hash of a normalised line to its positions: head holds the
// first position and the count per hash, next chains the positions in ascending order. Keys
// are hashes rather than strings because a map of integers builds several times faster than
// one of strings on a 100,000-line file; two different lines with one hash share a chain, so
// every reader compares the text (matchesAt does, and nearest checks it).
type levelIndex struct {
	norm []string
	seed maphash.Seed
	head map[uint64]posList
	next []int32 // next position with the same hash, -1 at the end
}

// lookup returns the chain of the lines that may equal s.
func (li *levelIndex) lookup(s string) posList {
	h, ok := li.head[maphash.String(li.seed, s)]
	if !ok {
		return posList{first: -1}
	}
	return h
}

type posList struct {
	first, count int32
	mixed        bool // the chain holds lines of different text (a hash collision)
}

// bom is the UTF-8 byte order mark as a string.
const bom = "\ufeff"

// exactScanBudget bounds the forward scan of an exact first-hit search before the exact index
// is built.
const exactScanBudget = 4096

func newLineIndex(lines []string, bom bool) *lineIndex {
	return &lineIndex{lines: lines, bom: bom}
}

func (ix *lineIndex) level(l Level) *levelIndex {
	if li := ix.levels[l]; li != nil {
		return li
	}
	li := &levelIndex{}
	if l == LevelExact {
		li.norm = ix.lines
	} else {
		li.norm = make([]string, len(ix.lines))
		for i, s := range ix.lines {
			li.norm[i] = Normalize(l, s)
		}
		// Most files normalise to the same lines at several levels (no trailing blanks, no
		// typographic characters): share the index of an identical level.
		for k := LevelExact; k < l; k++ {
			if o := ix.levels[k]; o != nil && slices.Equal(o.norm, li.norm) {
				ix.levels[l] = o
				return o
			}
		}
	}
	li.seed = maphash.MakeSeed()
	li.head = make(map[uint64]posList) // not presized: files of repeated lines have few keys
	li.next = make([]int32, len(li.norm))
	for i := len(li.norm) - 1; i >= 0; i-- {
		k := maphash.String(li.seed, li.norm[i])
		h, ok := li.head[k]
		if ok {
			li.next[i] = h.first
			h.mixed = h.mixed || li.norm[h.first] != li.norm[i]
		} else {
			li.next[i] = -1
		}
		li.head[k] = posList{first: int32(i), count: h.count + 1, mixed: h.mixed}
	}
	ix.levels[l] = li
	return li
}

// restrictExact prepares exact lookups of the given texts (the lines of a section's chunks)
// with one pass over the file and a map the size of the patch, instead of the index of every
// line: on a 100,000-line file that index costs more than locating a thousand chunks, and the
// default mode needs an exact lookup for every chunk (its match must be unique). Patterns
// with a line outside texts fall back to the full index.
func (ix *lineIndex) restrictExact(texts []string) {
	sub := make(map[string][]int32, len(texts))
	for _, t := range texts {
		sub[t] = nil
	}
	for i, l := range ix.lines {
		if ps, ok := sub[l]; ok {
			sub[l] = append(ps, int32(i))
		}
	}
	ix.sub = sub
}

// subPositions is positions at exact level through the restricted index; ok is false when a
// pattern line is not in it.
func (ix *lineIndex) subPositions(pat []string, start, limit int, w *workBudget) (out []int, ok bool) {
	m, n := len(pat), len(ix.lines)
	best, bestCount := -1, 0
	for i, s := range pat {
		ps, found := ix.sub[s]
		if !found {
			return nil, false
		}
		if best < 0 || len(ps) < bestCount {
			best, bestCount = i, len(ps)
		}
	}
	bomSpecial := ix.bom && start == 0 && strings.HasPrefix(pat[0], bom)
	if bomSpecial && ix.matchesAt(LevelExact, pat, pat, 0) {
		out = append(out, 0)
		if limit > 0 && len(out) >= limit {
			return out, true
		}
	}
	for _, q := range ix.sub[pat[best]] {
		p := int(q) - best
		if p < start || bomSpecial && p == 0 {
			continue
		}
		if p > n-m {
			break
		}
		if !w.spend(int64(m)) {
			break
		}
		if ix.matchesAt(LevelExact, pat, pat, p) {
			out = append(out, p)
			if limit > 0 && len(out) >= limit {
				break
			}
		}
	}
	return out, true
}

// norms returns the file lines normalised at level l (the lines themselves at exact level,
// without building the exact index).
func (ix *lineIndex) norms(l Level) []string {
	if l == LevelExact {
		return ix.lines
	}
	return ix.level(l).norm
}

// normLine returns file line i at level l.
func (ix *lineIndex) normLine(l Level, i int) string { return ix.norms(l)[i] }

// lineMatches reports whether pattern text p matches file line i at level l.
func (ix *lineIndex) lineMatches(l Level, p string, i int) bool {
	ix.compares++
	if i == 0 && ix.bom {
		p = strings.TrimPrefix(p, bom)
	}
	return Normalize(l, p) == ix.norms(l)[i]
}

// matchesAt reports whether every pattern line matches at position p at level l. pn holds the
// pattern lines normalised at l.
func (ix *lineIndex) matchesAt(l Level, pat, pn []string, p int) bool {
	norm := ix.norms(l)
	for i := range pn {
		ix.compares++
		if p+i == 0 && ix.bom {
			if Normalize(l, strings.TrimPrefix(pat[0], bom)) != norm[0] {
				return false
			}
			continue
		}
		if norm[p+i] != pn[i] {
			return false
		}
	}
	return true
}

// workBudget counts the units (line comparisons, LCS cells, votes) one phase of one chunk may
// spend: locating, rescuing and diagnosing each get the configured work limit, so that no
// input can make a phase run longer than the limit allows.
type workBudget struct {
	used, limit int64
}

// spend takes n units and reports true when they fit in the limit; otherwise it marks the
// budget exhausted and reports false, and the caller must not do the work.
func (b *workBudget) spend(n int64) bool {
	if b.used+n > b.limit {
		b.used = b.limit + 1
		return false
	}
	b.used += n
	return true
}

func (b *workBudget) exhausted() bool { return b.used > b.limit }

// positions returns the ascending start positions p ≥ start where pat matches at level l,
// stopping after limit results (limit ≤ 0: all). The search goes through the index entry of
// the pattern's rarest line; every candidate checked costs len(pat) units of w, and the search
// stops when w is exhausted (the caller sees w.exhausted()).
func (ix *lineIndex) positions(l Level, pat []string, start, limit int, w *workBudget) []int {
	m, n := len(pat), len(ix.lines)
	if m == 0 || m > n || start > n-m {
		return nil
	}
	start = max(start, 0)
	if l == LevelExact && ix.sub != nil && ix.levels[LevelExact] == nil {
		if out, ok := ix.subPositions(pat, start, limit, w); ok {
			return out
		}
	}
	if l == LevelExact && (limit == 1 || limit == 2 && n-m-start <= exactScanBudget) && ix.levels[LevelExact] == nil {
		// Chunks usually sit a little after the cursor: a bounded forward scan finds the first
		// exact hits without building the index; a scan that does not reach the end of the
		// file builds it.
		end := min(n-m, start+exactScanBudget)
		var out []int
		for p := start; p <= end; p++ {
			if ix.lines[p] == pat[0] || p == 0 && ix.bom && ix.lines[0] == strings.TrimPrefix(pat[0], bom) {
				if !w.spend(int64(m)) {
					return out
				}
				if ix.matchesAt(LevelExact, pat, pat, p) {
					out = append(out, p)
					if len(out) >= limit {
						return out
					}
				}
			}
		}
		if end == n-m {
			return out
		}
	}
	li := ix.level(l)
	pn := make([]string, m)
	for i, s := range pat {
		pn[i] = Normalize(l, s)
	}
	var out []int
	// With a BOM, position 0 compares line 0 without the pattern's U+FEFF: check it apart.
	bomSpecial := ix.bom && start == 0 && strings.HasPrefix(pat[0], bom)
	if bomSpecial && ix.matchesAt(l, pat, pn, 0) {
		out = append(out, 0)
		if limit > 0 && len(out) >= limit {
			return out
		}
	}
	best, bestCount := -1, int32(0)
	for i, s := range pn {
		c := li.lookup(s).count
		if best < 0 || c < bestCount {
			best, bestCount = i, c
		}
		if c == 0 {
			break
		}
	}
	if bestCount == 0 {
		return out
	}
	for q := li.lookup(pn[best]).first; q >= 0; q = li.next[q] {
		p := int(q) - best
		if p < start {
			continue
		}
		if p > n-m {
			break
		}
		if bomSpecial && p == 0 {
			continue
		}
		if !w.spend(int64(m)) {
			break
		}
		if ix.matchesAt(l, pat, pn, p) {
			out = append(out, p)
			if limit > 0 && len(out) >= limit {
				break
			}
		}
	}
	return out
}
