package format

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/harnesskit/harnesskit/internal/udiff"
)

// Edit formats src, the content an edit is about to write at path, where old is the content
// before the edit (nil for a new file). With Scope == ScopeTouched it keeps only the
// formatter's changes that overlap, with one line of slack, the lines the edit changed, and
// only when that mix is verified: the same formatter, run on the mix, must print exactly what
// it printed for src (so for Go the mix parses and gofmt sees the same program; for any
// other language the formatter itself is the judge, and a mix it refuses or formats
// differently — a re-indentation kept in part, an import moved but not removed — is never
// written). A verified mix is returned with Result.Partial set. An unverified one falls back
// to no formatting: After is src, Err is nil, and Result.Note says why. When every change of
// the formatter is near the edit, Edit returns its whole output. Otherwise Edit is
// [Runner.Bytes]. Verifying costs one more run of the formatter.
func (r *Runner) Edit(ctx context.Context, env Env, cfg Config, reg []Def, file string, old, src []byte) Result {
	res := r.Bytes(ctx, env, cfg, reg, file, src)
	if r.Scope != ScopeTouched || old == nil || res.Err != nil || !res.Changed {
		return res
	}
	mix, partial := keepTouched(old, src, res.After)
	if !partial {
		return res
	}
	res.Partial = true
	if !bytes.Equal(mix, src) {
		check := r.Bytes(ctx, env, cfg, reg, file, mix)
		res.Elapsed += check.Elapsed
		if check.Err != nil || !bytes.Equal(check.After, res.After) {
			why := "formats it differently"
			if check.Err != nil {
				why = "refuses it (" + check.Err.Error() + ")"
			}
			res.Note = fmt.Sprintf("only the formatter's changes near the edit were wanted, but %s %s once the others are left out, so none were kept and the file is as the edit wrote it", res.Formatter, why)
			mix = src
			res.Partial = false
		}
	}
	res.After = mix
	res.Changed = !bytes.Equal(src, mix)
	res.Diff = ""
	if res.Changed {
		res.Diff = Unified(diffName(env, file), src, mix)
	}
	return res
}

// keepTouched rebuilds formatted from src, keeping each block of the formatter's changes
// only when it overlaps (±1 line) a line of src that the edit old→src changed. partial says
// whether some block was dropped.
func keepTouched(old, src, formatted []byte) ([]byte, bool) {
	o, s := udiff.Lines(string(old)), udiff.Lines(string(src))
	touched := map[int]bool{}
	delta := 0 // line number in src minus line number in old, before the current change
	for _, c := range udiff.Compute(o, s) {
		at := c.A + delta // where the change stands in src
		for k := range c.New {
			touched[at+k] = true
		}
		if c.B > c.A {
			// The edit removed lines here: the lines around the place are next to it.
			touched[at-1] = true
			touched[at+len(c.New)] = true
		}
		delta += len(c.New) - (c.B - c.A)
	}
	var out strings.Builder
	partial := false
	next := 0
	for _, c := range udiff.Compute(s, udiff.Lines(string(formatted))) {
		for _, l := range s[next:c.A] {
			out.WriteString(l)
		}
		keep := false
		for l := c.A - 1; l <= c.B; l++ {
			if touched[l] {
				keep = true
				break
			}
		}
		kept := s[c.A:c.B]
		if keep {
			kept = c.New
		}
		for _, l := range kept {
			out.WriteString(l)
		}
		partial = partial || !keep
		next = c.B
	}
	for _, l := range s[next:] {
		out.WriteString(l)
	}
	return []byte(out.String()), partial
}
