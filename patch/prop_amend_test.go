package patch

// failer is what the property checks need of *testing.T and *rapid.T.
type failer interface {
	Helper()
	Fatalf(format string, args ...any)
}

// checkRemovalSound is property 18 (removal soundness) for a one-file patch p applied to
// before giving after: every removed old line of every chunk is paired with a file line that
// it equals at a ladder level, and the file lines removed are exactly those paired lines (the
// other lines of before appear in after, in order).
func checkRemovalSound(t failer, p *Patch, reports []ChunkReport, before, after []byte) {
	t.Helper()
	d := parseDoc(before, false)
	ix := newLineIndex(d.lines, d.bom)
	removed := map[int]bool{}
	for _, r := range reports {
		if r.Section < 1 || r.Section > len(p.Hunks) || r.Chunk < 1 || r.Chunk > len(p.Hunks[r.Section-1].Chunks) {
			t.Fatalf("report %+v names no chunk", r)
		}
		if r.Pairing == nil {
			continue // a pure insertion
		}
		ch := p.Hunks[r.Section-1].Chunks[r.Chunk-1]
		var ops []Line
		for _, l := range ch.Lines {
			if l.Op != Insert {
				ops = append(ops, l)
			}
		}
		if len(r.Pairing) != len(ops) {
			t.Fatalf("chunk %d: pairing %v for %d old lines", r.Chunk, r.Pairing, len(ops))
		}
		n := 0
		for i, l := range ops {
			q := r.Pairing[i]
			if l.Op != Remove {
				continue
			}
			if r.BlankRetry && i == len(ops)-1 && q == 0 {
				continue
			}
			if q < 1 || q > len(d.lines) {
				t.Fatalf("chunk %d: removed line %q paired with file line %d", r.Chunk, l.Text, q)
			}
			eq := false
			for lv := LevelExact; lv <= LevelUnicodeTrim; lv++ {
				eq = eq || ix.lineMatches(lv, l.Text, q-1)
			}
			if !eq {
				t.Fatalf("chunk %d: removed line %q paired with file line %d %q, which it does not equal",
					r.Chunk, l.Text, q, d.lines[q-1])
			}
			removed[q-1] = true
			n++
		}
		if n != r.Removed {
			t.Fatalf("chunk %d: %d paired removed lines, report says %d removed", r.Chunk, n, r.Removed)
		}
	}
	var kept []string
	for i, l := range d.lines {
		if !removed[i] {
			kept = append(kept, l)
		}
	}
	if !isSubsequence(kept, parseDoc(after, false).lines) {
		t.Fatalf("a line the patch does not remove is gone:\nbefore %q\nafter  %q\nremoved %v", before, after, removed)
	}
}

// isSubsequence reports whether a is a subsequence of b.
func isSubsequence(a, b []string) bool {
	i := 0
	for _, s := range b {
		if i < len(a) && a[i] == s {
			i++
		}
	}
	return i == len(a)
}
