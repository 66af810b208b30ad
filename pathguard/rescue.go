package pathguard

import (
	"errors"
	"io/fs"
	"maps"
	"strings"
)

// Rescuer repairs an absolute path a model copied from another machine or checkout
// ("/home/someone/ws/src/a.ts" for workspace "/home/me/ws") when that path does not exist
// and the workspace's trailing directory names occur in it exactly once. It is opt-in: a
// host that wants the plugin's behaviour calls [Rescuer.Rescue] and then
// [SearchGuard.Check] on its output. Build it with [NewRescuer]; it is immutable and safe
// for concurrent use.
type Rescuer struct {
	flavor Flavor
	stat   func(name string) error
}

// NewRescuer returns a Rescuer configured by [WithFlavor] and [WithStat]. It does no I/O.
func NewRescuer(opts ...RescueOption) *Rescuer {
	var cfg sharedConfig
	for _, o := range opts {
		if o != nil {
			o.applyRescue(&cfg)
		}
	}
	cfg.defaults()
	return &Rescuer{flavor: cfg.flavor, stat: cfg.stat}
}

// rescueKeys are the argument keys tried, in order.
var rescueKeys = [...]string{"filePath", "path"}

// Rescue returns a copy of args in which at most one argument (filePath, else path) has
// been rewritten into the workspace, the key rewritten, and whether anything changed. Only
// the tools read, list, glob and grep (exact names) are considered. A key is rewritten only
// when its value is a non-empty absolute string that stat reports as not existing, is not
// already under the workspace, has no "." or ".." segment, contains the longest trailing
// run of the workspace's segments exactly once, and the candidate after it exists. args is
// never modified; out is a shallow copy (nil for nil args).
func (r *Rescuer) Rescue(tool string, args map[string]any, workspace string) (out map[string]any, key string, changed bool) {
	out = maps.Clone(args)
	switch tool {
	case "read", "list", "glob", "grep":
	default:
		return out, "", false
	}
	if workspace == "" {
		return out, "", false
	}
	for _, k := range rescueKeys {
		raw, ok := args[k].(string)
		if !ok || raw == "" || !r.flavor.IsAbs(raw) {
			continue
		}
		if cand, ok := r.rescue(raw, workspace); ok {
			out[k] = cand
			return out, k, true
		}
	}
	return out, "", false
}

func (r *Rescuer) rescue(raw, workspace string) (string, bool) {
	if err := r.stat(raw); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	sep := string(r.flavor.Sep())
	ws := r.flavor.Resolve(workspace)
	if rv := r.flavor.Resolve(raw); rv == ws || strings.HasPrefix(rv, strings.TrimSuffix(ws, sep)+sep) {
		return "", false
	}
	if sep == `\` {
		raw = strings.ReplaceAll(raw, "/", `\`)
	}
	segs := nonEmpty(strings.Split(raw, sep))
	for _, s := range segs {
		if s == "." || s == ".." {
			return "", false
		}
	}
	wsSegs := nonEmpty(strings.Split(strings.ReplaceAll(ws, "/", sep), sep))
	for k := len(wsSegs); k >= 1; k-- {
		anchor := wsSegs[len(wsSegs)-k:]
		at, count := -1, 0
		for i := 0; i+k <= len(segs); i++ {
			if equalSegs(segs[i:i+k], anchor) {
				at = i
				count++
			}
		}
		if count == 0 {
			continue
		}
		if count > 1 {
			return "", false
		}
		cand := ws
		if rest := segs[at+k:]; len(rest) > 0 {
			cand = strings.TrimSuffix(ws, sep) + sep + strings.Join(rest, sep)
		}
		if r.stat(cand) != nil {
			return "", false
		}
		return cand, true
	}
	return "", false
}

func nonEmpty(segs []string) []string {
	out := segs[:0]
	for _, s := range segs {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func equalSegs(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
