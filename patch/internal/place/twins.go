package place

import (
	"fmt"
	"strings"
)

// A patch that makes one change at several places of a file (a message rewritten in every test
// that checks it) often has chunks with the same lines, none of them able to choose its place:
// each matches at every one of those places. When the file has exactly as many places as the
// patch has such chunks, which chunk goes where does not matter: every place gets the same
// change. sameChunks places them, the i-th of them in patch order at the i-th place.

// sameChunks decides chunk k (1-based; anchorFree, without "*** End of File"), whose old lines
// match exactly at several places from the cursor on: when the section has as many chunks with
// exactly its lines (context, removed and added; each anchorFree, without "*** End of File") as
// the places where its old lines match exactly in the whole file, those places do not overlap
// one another nor a window placed before, the first is at or below the cursor, chunk k is the
// first of those chunks and their new side is nowhere in the file yet (else the change may be
// made at some places already, and which are left is not known), the places are given out in
// order: chunk k takes the first, the others are recorded in s.assigned. It returns chunk k's
// place.
func (s *Locator) sameChunks(k int, ch Chunk, old []string, cursor int, r seekResult, rep *ChunkReport) (int, bool) {
	if s.cfg.Codex || r.level != LevelExact || !s.anchorFree(ch) || ch.EOF || len(old) == 0 {
		return 0, false
	}
	members := s.sameAs(k)
	if len(members) < 2 || members[0] != k {
		return 0, false
	}
	ps := s.ix.positions(LevelExact, old, 0, len(members)+1, &s.work)
	if s.work.exhausted() || len(ps) != len(members) || ps[0] < cursor {
		return 0, false
	}
	if nw := (chunkBody{lines: ch.Lines}).new(); len(nw) > 0 && (len(s.ix.positions(LevelExact, nw, 0, 1, &s.work)) > 0 || s.work.exhausted()) {
		return 0, false // the change is made at some place already: which ones are left is not known
	}
	for i, p := range ps {
		if i > 0 && p < ps[i-1]+len(old) {
			return 0, false
		}
		if _, hit := s.overlapping(p, p+len(old)); hit {
			return 0, false
		}
	}
	if s.assigned == nil {
		s.assigned = map[int]sameSlot{}
	}
	for i, m := range members[1:] {
		s.assigned[m] = sameSlot{i: i + 1, members: members, ps: ps}
	}
	rep.Notes = append(rep.Notes, sameNote(sameSlot{members: members, ps: ps}))
	return ps[0], true
}

// sameSlot is the place sameChunks gave one of the chunks with the same lines: the i-th
// (0-based) of ps.
type sameSlot struct {
	i           int
	members, ps []int
}

// sameNote is the report note of a chunk placed by sameChunks.
func sameNote(sl sameSlot) string {
	names := make([]string, len(sl.members))
	for j, m := range sl.members {
		names[j] = fmt.Sprint(m)
	}
	return fmt.Sprintf("same change at %d places: chunks %s have the same lines and the file has them at %d places only; each place gets the change (this chunk: file line %d)",
		len(sl.ps), strings.Join(names, ", "), len(sl.ps), sl.ps[sl.i]+1)
}

// sameAs returns the chunks (1-based, in patch order) of the section whose lines are exactly
// those of chunk k, k included, when chunk k has no anchor and no "*** End of File"; the
// grouping is computed once per section.
func (s *Locator) sameAs(k int) []int {
	if s.same == nil {
		s.same = map[string][]int{}
		for i, ch := range s.chunks {
			if key, ok := s.chunkKey(ch); ok {
				s.same[key] = append(s.same[key], i+1)
			}
		}
	}
	key, ok := s.chunkKey(s.chunks[k-1])
	if !ok {
		return nil
	}
	return s.same[key]
}

// anchorFree reports whether chunk ch counts as a chunk without an anchor among the same
// chunks: it has none (a unified "@@ -a,b +c,d @@" header with no text is none), or none of
// its anchors is anywhere in the file at any level of the ladder (an anchor the file has
// still names where the chunk goes, though an earlier one is gone).
func (s *Locator) anchorFree(ch Chunk) bool {
	anchors, _ := s.anchorsOf(ch)
	for _, a := range anchors {
		r := s.seek([]string{a}, 0, false, false)
		if r.pos >= 0 || r.ambiguous || s.work.exhausted() {
			return false
		}
	}
	return true
}

// chunkKey is the lines of ch, for grouping the chunks that have the same ones; ok is false
// for a chunk with an anchor the file has or with "*** End of File".
func (s *Locator) chunkKey(ch Chunk) (key string, ok bool) {
	if ch.EOF || !s.anchorFree(ch) {
		return "", false
	}
	var b strings.Builder
	for _, l := range ch.Lines {
		b.WriteByte(byte(l.Op))
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String(), true
}
