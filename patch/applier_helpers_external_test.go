package patch_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

// apRoot is the root of the in-memory trees, absolute in the OS's own form.
var apRoot = testenv.Abs("/w/root")

// pt builds patch text from body lines.
func apText(lines ...string) string {
	return "*** Begin Patch\n" + strings.Join(lines, "\n") + "\n*** End Patch\n"
}

// apTree creates a MemFS holding files (slash paths relative to apRoot) with mode 0o644.
func apTree(t testing.TB, files map[string]string) *wfs.MemFS {
	t.Helper()
	m := wfs.NewMemFS()
	if err := m.MkdirAll(apRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	for rel, data := range files {
		p := filepath.Join(apRoot, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			if err := m.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := m.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := m.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// apFiles returns the regular files under apRoot (slash paths) and their contents.
func apFiles(m *wfs.MemFS) map[string]string {
	out := map[string]string{}
	for rel, e := range m.TreeUnder(apRoot) {
		if !e.Dir && !e.Symlink {
			out[rel] = string(e.Data)
		}
	}
	return out
}

// apCase is one row of the apply edge-case tables.
type apCase struct {
	name    string
	files   map[string]string
	patch   string
	opts    []patch.Option
	want    map[string]string // files afterwards; nil = unchanged
	kind    patch.Kind        // 0 = success
	msg     []string          // substrings of the error text
	summary string            // exact Result.Summary when set
	check   func(t *testing.T, res *patch.Result, err error)
	setup   func(m *wfs.MemFS)               // after the files are written
	checkFS func(t *testing.T, m *wfs.MemFS) // the tree after Apply
}

func apRun(t *testing.T, cases []apCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := apTree(t, tc.files)
			if tc.setup != nil {
				tc.setup(m)
			}
			a, err := patch.New(m, apRoot, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			res, err := a.Apply(context.Background(), tc.patch)
			want := tc.want
			if want == nil {
				want = tc.files
				if want == nil {
					want = map[string]string{}
				}
			}
			if diff := cmp.Diff(want, apFiles(m)); diff != "" {
				t.Errorf("files after Apply (-want +got):\n%s\nerr: %v", diff, err)
			}
			if tc.kind == 0 {
				if err != nil {
					t.Fatalf("Apply: %v", err)
				}
				if tc.summary != "" && res.Summary != tc.summary {
					t.Errorf("summary = %q, want %q", res.Summary, tc.summary)
				}
			} else {
				var pe *patch.Error
				if !errors.As(err, &pe) || pe.Kind != tc.kind {
					t.Fatalf("Apply error = %v, want kind %v", err, tc.kind)
				}
				for _, s := range tc.msg {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err.Error(), s)
					}
				}
			}
			if tc.check != nil {
				tc.check(t, res, err)
			}
			if tc.checkFS != nil {
				tc.checkFS(t, m)
			}
		})
	}
}

// reportOf returns the strategies of the report, in order.
func apStrategies(res *patch.Result) []patch.Strategy {
	var out []patch.Strategy
	if res == nil {
		return nil
	}
	for _, r := range res.Report {
		out = append(out, r.Strategy)
	}
	return out
}

func apWantStrategies(want ...patch.Strategy) func(t *testing.T, res *patch.Result, err error) {
	return func(t *testing.T, res *patch.Result, err error) {
		t.Helper()
		if diff := cmp.Diff(want, apStrategies(res)); diff != "" {
			t.Errorf("strategies (-want +got):\n%s", diff)
		}
	}
}

func apErr(err error) *patch.Error {
	var pe *patch.Error
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// rescue is WithRescue over DefaultRescue with change applied.
func rescue(change func(*patch.RescueOptions)) patch.Option {
	r := patch.DefaultRescue()
	change(&r)
	return patch.WithRescue(r)
}
