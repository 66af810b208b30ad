package format

import (
	"fmt"
	"strings"
)

// DefaultDiffContext is the number of unchanged lines around each hunk of a unified diff.
const DefaultDiffContext = 3

// maxEditDistance bounds the diff search (memory grows with its square). Past it the
// remaining middle of the file is reported as one replaced block: still a correct diff,
// just not a minimal one.
const maxEditDistance = 2000

// splitLines splits s into lines that keep their "\n".
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

type opKind byte

const (
	opEq opKind = iota
	opDel
	opIns
)

type diffOp struct {
	kind opKind
	a, b int // line indexes in before (a) and after (b)
}

// diffLines returns an edit script from a to b, minimal (Myers) up to maxEditDistance.
func diffLines(a, b []string) []diffOp {
	var ops []diffOp
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		ops = append(ops, diffOp{opEq, pre, pre})
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre, pre)...)
	for i := range suf {
		ops = append(ops, diffOp{opEq, len(a) - suf + i, len(b) - suf + i})
	}
	return ops
}

// myers is the O(ND) greedy algorithm of Myers (1986), keeping one frontier per step to
// trace the path back. offA and offB shift the reported line indexes.
func myers(a, b []string, offA, offB int) []diffOp {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return replaceAll(n, m, offA, offB)
	}
	maxD := min(n+m, maxEditDistance)
	off := maxD + 1
	v := make([]int32, 2*maxD+3)
	var trace [][]int32
	for d := 0; d <= maxD; d++ {
		snap := make([]int32, 2*d+3)
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = int(v[off+k+1])
			} else {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				return backtrack(trace, d, n, m, a, b, offA, offB)
			}
		}
	}
	return replaceAll(n, m, offA, offB)
}

func replaceAll(n, m, offA, offB int) []diffOp {
	ops := make([]diffOp, 0, n+m)
	for i := range n {
		ops = append(ops, diffOp{opDel, offA + i, offB})
	}
	for j := range m {
		ops = append(ops, diffOp{opIns, offA + n, offB + j})
	}
	return ops
}

// backtrack walks the saved frontiers from (n, m) back to (0, 0).
func backtrack(trace [][]int32, dEnd, n, m int, a, b []string, offA, offB int) []diffOp {
	var rev []diffOp
	x, y := n, m
	for d := dEnd; d > 0; d-- {
		vd := trace[d] // frontier before step d, indexed k+d+1
		at := func(k int) int { return int(vd[k+d+1]) }
		k := x - y
		var prevK int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			rev = append(rev, diffOp{opEq, offA + x, offB + y})
		}
		if prevK == k+1 {
			y--
			rev = append(rev, diffOp{opIns, offA + x, offB + y})
		} else {
			x--
			rev = append(rev, diffOp{opDel, offA + x, offB + y})
		}
		x, y = prevX, prevY
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, diffOp{opEq, offA + x, offB + y})
	}
	ops := make([]diffOp, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops
}

// Unified returns the unified diff from before to after with DefaultDiffContext lines of
// context, headed "--- a/<name>" and "+++ b/<name>"; "" when they are equal. A last line
// without a newline is followed by "\ No newline at end of file", as in diff(1).
func Unified(name string, before, after []byte) string {
	if string(before) == string(after) {
		return ""
	}
	a, b := splitLines(string(before)), splitLines(string(after))
	ops := diffLines(a, b)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- a/%s\n+++ b/%s\n", name, name)
	ctx := DefaultDiffContext
	for i := 0; i < len(ops); {
		if ops[i].kind == opEq {
			i++
			continue
		}
		// A hunk starts ctx lines before this change and extends while changes are at
		// most 2*ctx equal lines apart.
		start := max(0, i-ctx)
		end := i
		for end < len(ops) {
			if ops[end].kind != opEq {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == opEq {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(end+ctx, run)
				break
			}
			end = run
		}
		writeHunk(&sb, ops[start:end], a, b)
		i = end
	}
	return sb.String()
}

func writeHunk(sb *strings.Builder, ops []diffOp, a, b []string) {
	aStart, bStart := ops[0].a, ops[0].b
	var aLen, bLen int
	for _, o := range ops {
		switch o.kind {
		case opEq:
			aLen++
			bLen++
		case opDel:
			aLen++
		case opIns:
			bLen++
		}
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
	for _, o := range ops {
		var prefix byte
		var line string
		switch o.kind {
		case opEq:
			prefix, line = ' ', a[o.a]
		case opDel:
			prefix, line = '-', a[o.a]
		case opIns:
			prefix, line = '+', b[o.b]
		}
		sb.WriteByte(prefix)
		sb.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange writes a hunk's "start,len" the way diff(1) does: the start is 1-based, and is
// the line before the hunk when the range is empty.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// changedLines counts the lines a diff adds and removes.
func changedLines(diff string) (added, removed int) {
	for line := range strings.Lines(diff) {
		switch {
		case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "):
		case strings.HasPrefix(line, "+"):
			added++
		case strings.HasPrefix(line, "-"):
			removed++
		}
	}
	return added, removed
}
