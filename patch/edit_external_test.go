package patch_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

func TestApplyEdits(t *testing.T) {
	type E = patch.Edit
	tests := []struct {
		name     string
		file     string
		edits    []E
		want     string
		strategy patch.Strategy
		kind     patch.Kind
		msg      []string // substrings of the error message
		cands    []int
		fileLine int
	}{
		{name: "exact unique", file: "a\nb\nc\n", edits: []E{{Old: "b", New: "B"}}, want: "a\nB\nc\n", strategy: patch.StrategyExact},
		{name: "exact inside a line", file: "x := foo(1) + 2\n", edits: []E{{Old: "foo(1)", New: "bar(1)"}}, want: "x := bar(1) + 2\n"},
		{name: "multi-line exact", file: "a\nb\nc\nd\n", edits: []E{{Old: "b\nc\n", New: "X\n"}}, want: "a\nX\nd\n"},
		{name: "several edits in order see each other", file: "one\ntwo\n", edits: []E{{Old: "one", New: "uno"}, {Old: "uno\ntwo", New: "uno\ndos"}}, want: "uno\ndos\n"},
		{name: "replace all", file: "x x\nx\n", edits: []E{{Old: "x", New: "yy", ReplaceAll: true}}, want: "yy yy\nyy\n"},
		{name: "replace all non-overlapping", file: "aaaa\n", edits: []E{{Old: "aa", New: "b", ReplaceAll: true}}, want: "bb\n"},
		{name: "ambiguous lists lines", file: "f()\nx\nf()\n", edits: []E{{Old: "f()", New: "g()"}}, kind: patch.KindAmbiguous,
			msg: []string{"matches 2 places", "lines 1, 3", "replace_all"}, cands: []int{1, 3}, fileLine: 1},
		{name: "overlapping places are ambiguous", file: "xaaax\n", edits: []E{{Old: "aa", New: "b"}}, kind: patch.KindAmbiguous, msg: []string{"matches 2 places"}},
		{name: "old equals new", file: "a\n", edits: []E{{Old: "a", New: "a"}}, kind: patch.KindInvalid, msg: []string{"are the same"}},
		{name: "empty old on existing file", file: "a\n", edits: []E{{Old: "", New: "b"}}, kind: patch.KindExists, msg: []string{"already has content"}},
		{name: "empty old fills empty file", file: "", edits: []E{{Old: "", New: "hello\n"}}, want: "hello\n", strategy: patch.StrategyCreate},
		{name: "no edits", file: "a\n", kind: patch.KindEmpty},
		{name: "crlf file, lf edit", file: "a\r\nb\r\nc\r\n", edits: []E{{Old: "a\nb\n", New: "a\nB\nB2\n"}}, want: "a\r\nB\r\nB2\r\nc\r\n"},
		{name: "crlf edit on crlf file", file: "a\r\nb\r\n", edits: []E{{Old: "b\r\n", New: "c\r\n"}}, want: "a\r\nc\r\n"},
		{name: "mixed eol kept line for line", file: "a\r\nb\nc\r\n", edits: []E{{Old: "a\nb", New: "A\nB"}}, want: "A\r\nB\nc\r\n"},
		{name: "final newline kept", file: "a\nb\n", edits: []E{{Old: "b\n", New: "c"}}, want: "a\nc\n"},
		{name: "no final newline kept", file: "a\nb", edits: []E{{Old: "a", New: "x\ny"}}, want: "x\ny\nb"},
		{name: "final newline added at the end", file: "a\nb", edits: []E{{Old: "b", New: "c\nd\n"}}, want: "a\nc\nd\n"},
		{name: "bom kept", file: "\ufeffa\nb\n", edits: []E{{Old: "a", New: "A"}}, want: "\ufeffA\nb\n"},
		{name: "trailing whitespace drift", file: "if x {  \n\treturn 1\n}\n", edits: []E{{Old: "if x {\n\treturn 1\n}", New: "if x {\n\treturn 2\n}"}},
			want: "if x {  \n\treturn 2\n}\n", strategy: patch.StrategyTrimEnd},
		{name: "indentation drift keeps file context", file: "func f() {\n\tif x {\n\t\ty()\n\t}\n}\n",
			edits: []E{{Old: "if x {\n    y()\n}", New: "if x {\n    z()\n}"}}, want: "func f() {\n\tif x {\n    z()\n\t}\n}\n", strategy: patch.StrategyTrim},
		{name: "unicode punctuation drift", file: "say(\u201chi\u201d)\nnext\n", edits: []E{{Old: "say(\"hi\")\nnext", New: "say(\"bye\")\nnext"}},
			want: "say(\"bye\")\nnext\n", strategy: patch.StrategyUnicode},
		{name: "exact substring twice", file: "  x\n\tx\n", edits: []E{{Old: "x\n", New: "y\n"}}, kind: patch.KindAmbiguous, cands: []int{1, 2}},
		{name: "loose ambiguous", file: "  a  \nb\n a \n", edits: []E{{Old: "a\n", New: "c\n"}}, kind: patch.KindAmbiguous, cands: nil},
		{name: "not found names closest line", file: "func f() {\n\treturn 1\n}\n", edits: []E{{Old: "func f() {\n\treturn 7\n}", New: "x"}},
			kind: patch.KindNotFound, msg: []string{"closest place starts at line 1", "old_string line 2: \treturn 7", "file line 2: \treturn 1"}, fileLine: 2},
		{name: "already applied", file: "a\nreturn newValue(x)\n", edits: []E{{Old: "return oldValue(x)", New: "return newValue(x)"}}, kind: patch.KindAlreadyApplied, msg: []string{"line 2"}},
		{name: "short new text found by chance is no proof", file: "a\nc\n", edits: []E{{Old: "zz", New: "c"}}, kind: patch.KindNotFound},
		{name: "read-tool line numbers removed", file: "a\nb\nc\n", edits: []E{{Old: "     2\tb\n     3\tc", New: "B\nC"}},
			want: "a\nB\nC\n", strategy: patch.StrategyLineNumbers},
		{name: "read-tool arrow numbers", file: "a\nb\n", edits: []E{{Old: "1→a", New: "A"}}, want: "A\nb\n", strategy: patch.StrategyLineNumbers},
		{name: "line numbers wrong line refused", file: "a\nb\nc\n", edits: []E{{Old: "     1\tb", New: "B"}}, kind: patch.KindNotFound, msg: []string{"Line numbers are not part of the file"}},
		{name: "line numbers in new refused", file: "a\nb\n", edits: []E{{Old: "     2\tb", New: "     2\tB"}}, kind: patch.KindNotFound, msg: []string{"so do those of new_string"}},
		{name: "line numbers not consecutive", file: "a\nb\nc\n", edits: []E{{Old: "     1\ta\n     3\tc", New: "x"}}, kind: patch.KindNotFound, msg: []string{"not consecutive"}},
		{name: "second edit failing names it", file: "a\nb\n", edits: []E{{Old: "a", New: "A"}, {Old: "zzz", New: "y"}}, kind: patch.KindNotFound,
			msg: []string{"edit 2 of 2", "after edit 1;"}},
		{name: "side twin refused", file: "\tx()\n  }\n}\n", edits: []E{{Old: "x()\n}", New: "x()\ny()\n}"}}, kind: patch.KindAmbiguous,
			msg: []string{"is a guess"}, cands: []int{2, 3}},
		{name: "replace all exact", file: " a\nb\n  a\n", edits: []E{{Old: "a\n", New: "c\n", ReplaceAll: true}}, want: " c\nb\n  c\n"},
		{name: "replace all at a loose level", file: "x = 1  \ny\nx = 1 \n", edits: []E{{Old: "x = 1\n", New: "x = 2\n", ReplaceAll: true}},
			want: "x = 2\ny\nx = 2\n", strategy: patch.StrategyTrimEnd},
		{name: "delete lines", file: "a\nb\nc\n", edits: []E{{Old: "b\n", New: ""}}, want: "a\nc\n"},
		{name: "exact wins over a loose match elsewhere", file: "x  \nx\n", edits: []E{{Old: "x\n", New: "y\n"}}, want: "x  \ny\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, reps, err := patch.ApplyEdits("f.go", []byte(tc.file), tc.edits)
			if tc.kind != 0 {
				var pe *patch.Error
				if !errors.As(err, &pe) {
					t.Fatalf("err = %v, want kind %v", err, tc.kind)
				}
				if pe.Kind != tc.kind || pe.Op != "edit" {
					t.Fatalf("kind = %v op %q, want %v: %v", pe.Kind, pe.Op, tc.kind, err)
				}
				if !strings.HasPrefix(err.Error(), "edit ") {
					t.Errorf("message %q does not start with edit", err)
				}
				for _, m := range tc.msg {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("message lacks %q:\n%s", m, err)
					}
				}
				if tc.cands != nil && !equalInts(pe.Candidates, tc.cands) {
					t.Errorf("candidates = %v, want %v", pe.Candidates, tc.cands)
				}
				if tc.fileLine != 0 && pe.FileLine != tc.fileLine {
					t.Errorf("file line = %d, want %d", pe.FileLine, tc.fileLine)
				}
				if got != nil {
					t.Errorf("content returned with an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if tc.strategy != "" && (len(reps) == 0 || reps[0].Strategy != tc.strategy) {
				t.Errorf("reports %+v, want strategy %s", reps, tc.strategy)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestApplierEdit(t *testing.T) {
	ctx := context.Background()
	t.Run("writes through a transaction", func(t *testing.T) {
		m := apTree(t, map[string]string{"a.txt": "hello\nworld\n"})
		a, err := patch.New(m, apRoot)
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.Edit(ctx, patch.EditRequest{Path: "a.txt", Edits: []patch.Edit{{Old: "world", New: "there"}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := apFiles(m)["a.txt"]; got != "hello\nthere\n" {
			t.Fatalf("file = %q", got)
		}
		if len(res.Changes) != 1 || res.Changes[0].Op != patch.Modified || !strings.Contains(res.Summary, "M a.txt") {
			t.Fatalf("result %+v", res)
		}
	})
	t.Run("creates a missing file", func(t *testing.T) {
		m := apTree(t, nil)
		a, _ := patch.New(m, apRoot)
		if _, err := a.Edit(ctx, patch.EditRequest{Path: "d/new.txt", Edits: []patch.Edit{{Old: "", New: "x\n"}}}); err != nil {
			t.Fatal(err)
		}
		if got := apFiles(m)["d/new.txt"]; got != "x\n" {
			t.Fatalf("file = %q", got)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		a, _ := patch.New(apTree(t, nil), apRoot)
		_, err := a.Edit(ctx, patch.EditRequest{Path: "nope.txt", Edits: []patch.Edit{{Old: "a", New: "b"}}})
		if !errors.Is(err, patch.ErrMissingFile) || !strings.Contains(err.Error(), "empty old_string") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("outside the root", func(t *testing.T) {
		a, _ := patch.New(apTree(t, nil), apRoot)
		_, err := a.Edit(ctx, patch.EditRequest{Path: "../x", Edits: []patch.Edit{{Old: "a", New: "b"}}})
		if !errors.Is(err, patch.ErrBlocked) || !strings.HasPrefix(err.Error(), "edit blocked: ") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("changed since read", func(t *testing.T) {
		m := apTree(t, map[string]string{"a.txt": "v2\n"})
		a, _ := patch.New(m, apRoot)
		_, err := a.Edit(ctx, patch.EditRequest{Path: "a.txt", ReadDigest: patch.Digest([]byte("v1\n")), Edits: []patch.Edit{{Old: "v2", New: "v3"}}})
		if !errors.Is(err, patch.ErrChanged) || !strings.Contains(err.Error(), "Read it again") {
			t.Fatalf("err = %v", err)
		}
		if got := apFiles(m)["a.txt"]; got != "v2\n" {
			t.Fatalf("written: %q", got)
		}
		if _, err := a.Edit(ctx, patch.EditRequest{Path: "a.txt", ReadDigest: patch.Digest([]byte("v2\n")), Edits: []patch.Edit{{Old: "v2", New: "v3"}}}); err != nil {
			t.Fatalf("matching digest: %v", err)
		}
	})
	t.Run("all or nothing", func(t *testing.T) {
		m := apTree(t, map[string]string{"a.txt": "a\nb\n"})
		a, _ := patch.New(m, apRoot)
		_, err := a.Edit(ctx, patch.EditRequest{Path: "a.txt", Edits: []patch.Edit{{Old: "a", New: "A"}, {Old: "q", New: "Q"}}})
		if !errors.Is(err, patch.ErrNotFound) {
			t.Fatalf("err = %v", err)
		}
		if got := apFiles(m)["a.txt"]; got != "a\nb\n" {
			t.Fatalf("written: %q", got)
		}
	})
	t.Run("formatter runs", func(t *testing.T) {
		m := apTree(t, map[string]string{"a.txt": "a\n"})
		a, _ := patch.New(m, apRoot, patch.WithFormatter(upper{}))
		res, err := a.Edit(ctx, patch.EditRequest{Path: "a.txt", Edits: []patch.Edit{{Old: "a", New: "b"}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := apFiles(m)["a.txt"]; got != "B\n" || res.Changes[0].Formatter != "upper" {
			t.Fatalf("file = %q, %+v", got, res.Changes[0])
		}
	})
	t.Run("a directory", func(t *testing.T) {
		a, _ := patch.New(apTree(t, map[string]string{"d/": ""}), apRoot)
		_, err := a.Edit(ctx, patch.EditRequest{Path: "d", Edits: []patch.Edit{{Old: "a", New: "b"}}})
		if !errors.Is(err, patch.ErrPathConflict) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("changed between plan and commit", func(t *testing.T) {
		m := apTree(t, map[string]string{"a.txt": "a\n"})
		a, _ := patch.New(m, apRoot)
		pl, err := a.PlanEdit(ctx, patch.EditRequest{Path: "a.txt", Edits: []patch.Edit{{Old: "a", New: "b"}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.WriteFile(filepath.Join(apRoot, "a.txt"), []byte("z\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Commit(ctx, pl); !errors.Is(err, patch.ErrChanged) {
			t.Fatalf("err = %v", err)
		}
	})
	var _ wfs.FS = (*wfs.MemFS)(nil)
}

type upper struct{}

func (upper) Format(_ context.Context, _ string, src []byte) ([]byte, string, error) {
	return []byte(strings.ToUpper(string(src))), "upper", nil
}
