package format

import (
	"bytes"
	"context"
	"go/parser"
	"go/token"
	"strings"
)

// Edit formats src, the content an edit is about to write at path, where old is the content
// before the edit (nil for a new file). With Scope == ScopeTouched it keeps only the
// formatter's changes that overlap, with one line of slack, the lines the edit changed;
// Result.Partial says some were dropped. A Go result that no longer parses falls back to no
// formatting (After = src, Err nil, Partial true). Otherwise Edit is [Runner.Bytes].
func (r *Runner) Edit(ctx context.Context, env Env, cfg Config, reg []Def, file string, old, src []byte) Result {
	res := r.Bytes(ctx, env, cfg, reg, file, src)
	if r.Scope != ScopeTouched || old == nil || res.Err != nil || !res.Changed {
		return res
	}
	after, partial := keepTouched(old, src, res.After)
	if !partial {
		return res
	}
	res.Partial = true
	if strings.HasSuffix(strings.ToLower(file), ".go") {
		if _, err := parser.ParseFile(token.NewFileSet(), file, after, parser.SkipObjectResolution); err != nil {
			after = src
		}
	}
	res.After = after
	res.Changed = !bytes.Equal(src, after)
	res.Diff = ""
	if res.Changed {
		res.Diff = Unified(diffName(env, file), src, after)
	}
	return res
}

// keepTouched rebuilds formatted from src, keeping each block of the formatter's changes
// only when it overlaps (±1 line) a line of src that the edit old→src changed. partial says
// whether some block was dropped.
func keepTouched(old, src, formatted []byte) ([]byte, bool) {
	o, s, f := splitLines(string(old)), splitLines(string(src)), splitLines(string(formatted))
	touched := map[int]bool{}
	for _, op := range diffLines(o, s) {
		switch op.kind {
		case opIns:
			touched[op.b] = true
		case opDel:
			touched[op.b] = true // the edit removed lines here: the line now at b is next to it
			if op.b > 0 {
				touched[op.b-1] = true
			}
		}
	}
	ops := diffLines(s, f)
	var out strings.Builder
	partial := false
	for i := 0; i < len(ops); {
		if ops[i].kind == opEq {
			out.WriteString(s[ops[i].a])
			i++
			continue
		}
		j := i
		for j < len(ops) && ops[j].kind != opEq {
			j++
		}
		// The block replaces src lines [first, last) with formatted lines.
		first, last := ops[i].a, ops[i].a
		for _, op := range ops[i:j] {
			if op.kind == opDel {
				last = op.a + 1
			}
		}
		keep := false
		for l := first - 1; l <= last; l++ {
			if touched[l] {
				keep = true
				break
			}
		}
		for _, op := range ops[i:j] {
			switch {
			case keep && op.kind == opIns:
				out.WriteString(f[op.b])
			case !keep && op.kind == opDel:
				out.WriteString(s[op.a])
			}
		}
		partial = partial || !keep
		i = j
	}
	return []byte(out.String()), partial
}
