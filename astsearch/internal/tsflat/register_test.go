//go:build cgo

package tsflat

import (
	"strings"
	"testing"
	"unsafe"
)

// TestRegisterRefuses: Register panics on a set-up mistake and leaves the registry as it
// was (the grammars of grammars_test.go are registered by then).
func TestRegisterRefuses(t *testing.T) {
	some := func() unsafe.Pointer { return nil }
	for _, c := range []struct {
		name, lang string
		fn         func() unsafe.Pointer
		want       string
	}{
		{"unknown", "cobol", some, "unknown language"},
		{"alias_not_canonical", "golang", some, "unknown language"},
		{"nil_grammar", "go", nil, "nil grammar"},
		{"twice", "go", some, "twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := strings.Join(Languages(), ",")
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, c.want) {
					t.Errorf("panic %v, want one saying %q", r, c.want)
				}
				if after := strings.Join(Languages(), ","); after != before {
					t.Errorf("registry changed: %s -> %s", before, after)
				}
			}()
			Register(c.lang, c.fn)
		})
	}
	if Grammar("go") == nil || Grammar("cobol") != nil {
		t.Errorf("Grammar(go) = %v, Grammar(cobol) = %v", Grammar("go"), Grammar("cobol"))
	}
}
