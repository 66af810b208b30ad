package patch

import (
	"context"
	"errors"
	"fmt"
	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/wfs"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch/internal/place"
)

var itRoot = testenv.Abs("/w/root")

// itApplier returns a MemFS with files (relative paths) and an Applier over it.
func itApplier(t testing.TB, files map[string]string, opts ...Option) (*wfs.MemFS, *Applier) {
	t.Helper()
	m := wfs.NewMemFS()
	if err := m.MkdirAll(itRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	for rel, data := range files {
		if err := m.WriteFile(itRoot+"/"+rel, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := New(m, itRoot, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return m, a
}

func itText(lines ...string) string {
	return "*** Begin Patch\n" + strings.Join(lines, "\n") + "\n*** End Patch\n"
}

// bigCase builds a file of n distinct lines and a patch of k chunks spread over it, each
// replacing one line between one context line on either side. With loose, every chunk's
// context lines drift (trailing spaces, typographic dashes) so they match at trim-end or
// unicode.
func bigCase(n, k int, loose bool) (content []byte, text string) {
	var fb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&fb, "line %d - value %d\n", i, i*7)
	}
	var pb strings.Builder
	pb.WriteString("*** Begin Patch\n*** Update File: big.txt\n")
	step := n / k
	for c := 0; c < k; c++ {
		i := c*step + step/2
		before := fmt.Sprintf("line %d - value %d", i-1, (i-1)*7)
		after := fmt.Sprintf("line %d - value %d", i+1, (i+1)*7)
		if loose {
			if c%2 == 0 {
				before += "  "
			} else {
				after = strings.Replace(after, " - ", " \u2013 ", 1)
			}
		}
		fmt.Fprintf(&pb, "@@\n %s\n-line %d - value %d\n+LINE %d changed\n %s\n", before, i, i*7, i, after)
	}
	pb.WriteString("*** End Patch\n")
	return []byte(fb.String()), pb.String()
}

// codexModelApply applies text to one file with the internal Codex model.
func codexModelApply(t testing.TB, files map[string]string, text string) (codexTree, error) {
	t.Helper()
	tree := codexTree{}
	for k, v := range files {
		tree[k] = []byte(v)
	}
	err := codexApply(tree, text)
	return tree, err
}

func TestInternalEdgeCases(t *testing.T) {
	ctx := context.Background()
	t.Run("E105_work_limit_is_a_deterministic_miss", func(t *testing.T) {
		// The left edge "{" occurs 100,000 times; the right edge "]" never does, so every
		// left occurrence scans its whole span (41 lines) before the rescue gives up.
		file := strings.Repeat("{\n", 100_000)
		body := []string{"*** Update File: a.txt", "@@", " {"}
		for i := 0; i < 20; i++ {
			body = append(body, fmt.Sprintf("-stale %d", i))
		}
		body = append(body, "+fresh", " ]")
		var msgs []string
		for range 2 {
			_, a := itApplier(t, map[string]string{"a.txt": file}, rescue(func(r *RescueOptions) { r.WorkLimit = 100_000 }))
			_, err := a.Apply(ctx, itText(body...))
			var pe *Error
			if !errors.As(err, &pe) || pe.Kind != KindNotFound || !strings.Contains(pe.Msg, place.NoteWorkLimit) {
				t.Fatalf("err = %v, want NotFound noting the work limit", err)
			}
			msgs = append(msgs, pe.Msg)
		}
		if msgs[0] != msgs[1] {
			t.Errorf("two runs differ:\n%s\n%s", msgs[0], msgs[1])
		}
	})
	t.Run("E106_lcs_too_many_candidates", func(t *testing.T) {
		file := strings.Repeat("A\nq\nq\nZ\n", 65)
		_, a := itApplier(t, map[string]string{"a.txt": file})
		_, err := a.Apply(ctx, itText("*** Update File: a.txt", "@@", "-A", "+A2", " x1", " x2", "-Z", "+Z2"))
		var pe *Error
		if !errors.As(err, &pe) || pe.Kind != KindNotFound || !strings.Contains(pe.Msg, "too many candidates") {
			t.Fatalf("err = %v, want NotFound noting too many candidates", err)
		}
	})
	t.Run("E107_lcs_margin", func(t *testing.T) {
		win := func(keep int) string {
			var b strings.Builder
			b.WriteString("A\n")
			// Changed by the amendment: the removed line l10 is in every window (a window
			// without it may not remove anything).
			for i := 1; i <= 10; i++ {
				if i <= keep || i == 10 {
					fmt.Fprintf(&b, "l%d\n", i)
				} else {
					fmt.Fprintf(&b, "y%d\n", i)
				}
			}
			b.WriteString("Z\n")
			return b.String()
		}
		body := []string{"*** Update File: a.txt", "@@", " A"}
		for i := 1; i <= 9; i++ {
			body = append(body, fmt.Sprintf(" l%d", i))
		}
		body = append(body, "-l10", "+L10", " Z")
		for _, tc := range []struct {
			name      string
			runnerUp  int
			ambiguous bool
		}{{"runner_up_8_ambiguous", 6, true}, {"runner_up_7_rescued", 5, false}} {
			file := win(7) + "sep\n" + win(tc.runnerUp)
			_, a := itApplier(t, map[string]string{"a.txt": file}, rescue(func(r *RescueOptions) { r.PrefixSuffix = false }))
			res, err := a.Apply(ctx, itText(body...))
			if tc.ambiguous {
				if !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), "LCS rescue was ambiguous in a.txt") {
					t.Errorf("%s: err = %v, want LCS ambiguity", tc.name, err)
				}
				continue
			}
			if err != nil || res.Report[0].Strategy != StrategyLCS || res.Report[0].Start != 1 {
				t.Errorf("%s: res = %+v, err = %v; want LCS at line 1", tc.name, res, err)
			}
		}
	})
	t.Run("E118_thousand_exact_chunks_match_codex_model", func(t *testing.T) {
		content, text := bigCase(100_000, 1000, false)
		m, a := itApplier(t, map[string]string{"big.txt": string(content)}, WithCodexCompat())
		res, err := a.Apply(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Report {
			if r.Strategy != StrategyExact {
				t.Fatalf("chunk %d placed by %s, want exact", r.Chunk, r.Strategy)
			}
		}
		tree, err := codexModelApply(t, map[string]string{"big.txt": string(content)}, text)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := m.ReadFile(itRoot + "/big.txt")
		if string(got) != string(tree["big.txt"]) {
			t.Errorf("Apply and the Codex model differ")
		}
	})
	rewriteAgrees := func(t *testing.T, files map[string]string, text string, wantLines ...string) {
		t.Helper()
		_, a := itApplier(t, files)
		rw, err := a.Rewrite(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range wantLines {
			if !strings.Contains(rw.Text, w) {
				t.Errorf("rewrite %q lacks %q", rw.Text, w)
			}
		}
		tree, err := codexModelApply(t, files, rw.Text)
		if err != nil {
			t.Fatalf("Codex model on the rewrite: %v\n%s", err, rw.Text)
		}
		m, ca := itApplier(t, files, WithCodexCompat())
		if _, err := ca.Apply(ctx, text); err != nil {
			t.Fatal(err)
		}
		for k := range files {
			got, _ := m.ReadFile(itRoot + "/" + k)
			if string(got) != string(tree[k]) {
				t.Errorf("%s: compat Apply %q, Codex model on rewrite %q", k, got, tree[k])
			}
		}
	}
	t.Run("E122_rewrite_anchored_insertion", func(t *testing.T) {
		rewriteAgrees(t, map[string]string{"a.txt": "one\nanchor\ntwo\nanchor2\n"},
			itText("*** Update File: a.txt", "@@ anchor", "+middle"), "@@\n anchor\n+middle\n")
	})
	t.Run("E123_rewrite_prepends_context_until_codex_agrees", func(t *testing.T) {
		rewriteAgrees(t, map[string]string{"a.py": "class B:\n    def m():\n        return 1\nclass A:\n    def m():\n        return 1\n"},
			itText("*** Update File: a.py", "@@ class A:", "@@     def m():", "-        return 1", "+        return 2"),
			"@@\n class A:\n     def m():\n-        return 1\n+        return 2\n")
	})
}

// rescue is WithRescue over DefaultRescue with change applied.
func rescue(change func(*RescueOptions)) Option {
	r := DefaultRescue()
	change(&r)
	return WithRescue(r)
}
