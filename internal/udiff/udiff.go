// Package udiff writes unified diffs: the one diff writer of the module, used by format
// (a formatter's change), patch (the same, in a patch's report) and astsearch (a rewrite's
// dry run).
//
// A diff is built in two steps: a list of [Change] values (each replaces a run of old lines
// with new ones), computed by [Compute] or given by a caller that already knows what it
// replaced, then rendered by [Write]. [Diff] does both.
//
// The text is the one diff(1) -u and git print, with two fixed choices: three lines of
// context ([Context]), and every hunk header gives both counts ("@@ -1,1 +1,1 @@", never the
// short "@@ -1 +1 @@"). A line without a final newline is followed by
// "\ No newline at end of file". Hunks whose changes are at most 2×Context unchanged lines
// apart are merged.
package udiff

import (
	"strconv"
	"strings"
)

// Context is the number of unchanged lines shown around each change.
const Context = 3

// MaxEditDistance bounds the search of [Compute] (its memory grows with the square of the
// distance). Past it the differing middle of the texts is reported as one replaced block:
// still a correct diff, just not a minimal one.
const MaxEditDistance = 2000

// A Change replaces the old lines [A, B) with New (lines that keep their "\n"). A == B is
// an insertion before old line A; an empty New is a deletion.
type Change struct {
	A, B int
	New  []string
}

// Lines splits s into lines that keep their "\n"; a last line without one is kept as is.
func Lines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Diff returns the unified diff from before to after, headed "--- a/<name>" and
// "+++ b/<name>"; "" when they are equal.
func Diff(name string, before, after []byte) string {
	if string(before) == string(after) {
		return ""
	}
	a := Lines(string(before))
	return Write(name, a, Compute(a, Lines(string(after))))
}

// Write renders changes to the lines old as a unified diff headed "--- a/<name>" and
// "+++ b/<name>". The changes must be sorted by A and must not overlap (a change may start
// where the previous one ends). With no changes it returns "".
func Write(name string, old []string, changes []Change) string {
	if len(changes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("--- a/")
	b.WriteString(name)
	b.WriteString("\n+++ b/")
	b.WriteString(name)
	b.WriteByte('\n')
	delta := 0 // new line number minus old line number before the current hunk
	for i := 0; i < len(changes); {
		j := i
		for j+1 < len(changes) && changes[j+1].A-changes[j].B <= 2*Context {
			j++
		}
		first := max(changes[i].A-Context, 0)
		last := min(changes[j].B+Context, len(old))
		oldN, newN := last-first, last-first
		for _, c := range changes[i : j+1] {
			newN += len(c.New) - (c.B - c.A)
		}
		oldStart, newStart := first+1, first+1+delta
		if oldN == 0 {
			oldStart--
		}
		if newN == 0 {
			newStart--
		}
		b.WriteString("@@ -")
		b.WriteString(strconv.Itoa(oldStart))
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(oldN))
		b.WriteString(" +")
		b.WriteString(strconv.Itoa(newStart))
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(newN))
		b.WriteString(" @@\n")
		at := first
		for _, c := range changes[i : j+1] {
			for _, l := range old[at:c.A] {
				writeLine(&b, ' ', l)
			}
			for _, l := range old[c.A:c.B] {
				writeLine(&b, '-', l)
			}
			for _, l := range c.New {
				writeLine(&b, '+', l)
			}
			at = c.B
		}
		for _, l := range old[at:last] {
			writeLine(&b, ' ', l)
		}
		delta += newN - oldN
		i = j + 1
	}
	return b.String()
}

func writeLine(b *strings.Builder, tag byte, l string) {
	b.WriteByte(tag)
	b.WriteString(l)
	if !strings.HasSuffix(l, "\n") {
		b.WriteString("\n\\ No newline at end of file\n")
	}
}

// Count returns how many lines a unified diff adds and removes (its "+" and "-" lines inside
// hunks; the file headers are not counted).
func Count(diff string) (added, removed int) {
	inHunk := false
	for l := range strings.Lines(diff) {
		switch {
		case strings.HasPrefix(l, "@@"):
			inHunk = true
		case !inHunk:
			// the --- and +++ headers
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// Compute returns the changes that turn a into b: minimal (Myers' algorithm) up to
// [MaxEditDistance] changed lines, after the common first and last lines are set aside.
func Compute(a, b []string) []Change {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return myers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre)
}

// myers is the O(ND) greedy algorithm of Myers (1986), keeping the frontier of every step to
// trace the path back. off shifts the reported line numbers (the common prefix).
func myers(a, b []string, off int) []Change {
	n, m := len(a), len(b)
	if n == 0 && m == 0 {
		return nil
	}
	if n == 0 || m == 0 {
		return []Change{{A: off, B: off + n, New: b}}
	}
	maxD := min(n+m, MaxEditDistance)
	o := maxD + 1
	v := make([]int32, 2*maxD+3)
	var trace [][]int32
	for d := 0; d <= maxD; d++ {
		snap := make([]int32, 2*d+3)
		copy(snap, v[o-d-1:o+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[o+k-1] < v[o+k+1]) {
				x = int(v[o+k+1])
			} else {
				x = int(v[o+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[o+k] = int32(x)
			if x >= n && y >= m {
				return backtrack(trace, d, n, m, b, off)
			}
		}
	}
	return []Change{{A: off, B: off + n, New: b}}
}

// backtrack walks the saved frontiers from (n, m) back to (0, 0) and groups the steps of
// the path into changes: a run of deletions and insertions with no unchanged line between
// them is one change.
func backtrack(trace [][]int32, dEnd, n, m int, b []string, off int) []Change {
	// Each step, last first: the point (x, y) before it and whether it deletes a[x] (else it
	// inserts b[y]).
	type step struct {
		x, y int
		del  bool
	}
	steps := make([]step, 0, dEnd)
	x, y := n, m
	for d := dEnd; d > 0; d-- {
		vd := trace[d] // the frontier before step d, indexed k+d+1
		at := func(k int) int { return int(vd[k+d+1]) }
		k := x - y
		prevK := k - 1
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		steps = append(steps, step{x: prevX, y: prevY, del: prevK == k-1})
		x, y = prevX, prevY
	}
	var out []Change
	endX, endY := -1, -1 // the point after the last step of the current change
	startY := 0
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		if len(out) == 0 || s.x != endX || s.y != endY {
			if len(out) > 0 {
				c := &out[len(out)-1]
				c.New = b[startY:endY:endY]
			}
			out = append(out, Change{A: off + s.x, B: off + s.x})
			startY = s.y
		}
		endX, endY = s.x, s.y
		if s.del {
			out[len(out)-1].B++
			endX++
		} else {
			endY++
		}
	}
	if len(out) > 0 {
		out[len(out)-1].New = b[startY:endY:endY]
	}
	for i := range out {
		if len(out[i].New) == 0 {
			out[i].New = nil
		}
	}
	return out
}
