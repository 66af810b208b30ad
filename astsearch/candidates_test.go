//go:build cgo

package astsearch

import (
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// fullTrees is a native parser without ParseCandidates: searches through it flatten every
// file's whole tree and try every node, the path the candidate subtrees must agree with.
type fullTrees struct{ treeParser }

func fullFactory(l Lang) (treeParser, error) {
	tp, err := nativeParser(l)
	if err != nil {
		return nil, err
	}
	return fullTrees{tp}, nil
}

var (
	candidateBackend = &nativeBackend{factory: nativeParser}
	fullTreeBackend  = &nativeBackend{factory: fullFactory}
)

// sameSearch runs req (a rewrite with tmpl when tmpl is not nil) on both paths and
// reports any difference in matches, order, captures, replacements, plans or stats; with
// off, it also searches with the prefilter off and expects the same.
// tb is what sameSearch needs of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

func sameSearch(t tb, fsys fstest.MapFS, req Request, tmpl *string, off bool) (res *Result, candidatePath bool) {
	t.Helper()
	req.MaxMatches, req.MaxOutputBytes = math.MaxInt, math.MaxInt
	do := func(b Backend) (any, *Result, error) {
		req := req
		req.Backend = b
		if tmpl != nil {
			p, err := Rewrite(context.Background(), fsys, req, *tmpl)
			if err != nil {
				return nil, nil, err
			}
			return p, &p.Result, nil
		}
		r, err := Search(context.Background(), fsys, req)
		return r, r, err
	}
	a, ra, errA := do(candidateBackend)
	b, _, errB := do(fullTreeBackend)
	if fmt.Sprint(errA) != fmt.Sprint(errB) {
		t.Fatalf("%q: candidate path error %v, full path error %v", req.Pattern, errA, errB)
	}
	if errA != nil {
		return nil, false
	}
	if d := cmp.Diff(b, a, cmpopts.EquateEmpty(), cmp.AllowUnexported(Plan{}, FilePlan{})); d != "" {
		t.Fatalf("%s %q: candidate path differs from the full trees (-full +candidates):\n%s", req.Lang, req.Pattern, d)
	}
	if off {
		// The literal prefilter only skips files and subtrees without a match: off, it
		// parses and walks them too and finds the same.
		req.NoPrefilter = true
		c, rc, errC := do(candidateBackend)
		req.NoPrefilter = false
		if errC != nil {
			t.Fatalf("%q: without the prefilter: %v", req.Pattern, errC)
		}
		if ra.Stats.Searched+ra.Stats.Prefiltered != rc.Stats.Searched || rc.Stats.Prefiltered != 0 {
			t.Fatalf("%q: file accounting with the prefilter %+v, without %+v", req.Pattern, ra.Stats, rc.Stats)
		}
		ignoreCounts := cmpopts.IgnoreFields(Stats{}, "Searched", "Prefiltered")
		if d := cmp.Diff(c, a, cmpopts.EquateEmpty(), cmp.AllowUnexported(Plan{}, FilePlan{}), ignoreCounts); d != "" {
			t.Fatalf("%s %q: the prefilter changed the result (-off +on):\n%s", req.Lang, req.Pattern, d)
		}
	}
	p, err := compileWith(nativeParser, req.Pattern, req.Lang, req.Strictness)
	return ra, err == nil && p.p.CandidateKinds() != nil
}

// TestCandidatesConformance: for every conformance case with a native grammar, searching
// (or rewriting) through candidate subtrees gives exactly what whole trees give.
func TestCandidatesConformance(t *testing.T) {
	cases, withKinds, matched := 0, 0, 0
	for _, c := range loadConformance(t) {
		if !candidateBackend.Supports(Lang(c.Language)) {
			continue
		}
		s, err := ParseStrictness(c.Strictness)
		if err != nil {
			t.Fatal(err)
		}
		name := c.FileName
		if name == "" {
			name = "input" + "." + Lang(c.Language).Extensions()[0]
		}
		fsys := fstest.MapFS{name: {Data: []byte(c.Source), Mode: 0o644}}
		var tmpl *string
		if c.Kind == "rewrite" {
			tmpl = &c.Rewrite
		}
		t.Run(c.ID, func(t *testing.T) {
			r, kinds := sameSearch(t, fsys, Request{Pattern: c.Pattern, Lang: Lang(c.Language), Strictness: s, Context: 1}, tmpl, true)
			cases++
			if r != nil {
				matched += r.TotalMatches
			}
			if kinds {
				withKinds++
			}
		})
	}
	// Most patterns have a root kind; the candidate path must actually be exercised.
	if cases < 100 || withKinds < cases/2 || matched < 70 {
		t.Fatalf("%d cases compared, %d on the candidate path, %d matches: too few", cases, withKinds, matched)
	}
	t.Logf("%d cases compared (%d on the candidate path), %d matches", cases, withKinds, matched)
}

// TestCandidatesCorpora: the same over real trees. By default the whole of GOROOT/src/net
// with an unselective pattern (not with -short), and the differential test's quick paths
// with every corpus pattern; with -astsearch.corpus every corpus pattern over every whole
// corpus.
func TestCandidatesCorpora(t *testing.T) {
	for _, c := range corpora() {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.dir); err != nil {
				t.Skipf("%s not on this machine", c.dir)
			}
			whole := func(p string) bool {
				return *fullCorpus || !testing.Short() && c.lang == Go && p == "$A == nil"
			}
			load := c.quick
			if slices.ContainsFunc(c.patterns, whole) {
				load = []string{"."}
			}
			fsys := dirMapFS(t, c.dir, c.lang, load)
			for _, p := range c.patterns {
				paths := c.quick
				if whole(p) {
					paths = nil
				}
				// Over a whole corpus, the prefilter-off search is left to -astsearch.corpus.
				r, _ := sameSearch(t, fsys, Request{Pattern: p, Lang: c.lang, Paths: paths, Threads: 2, Context: 1}, nil, paths != nil || *fullCorpus)
				t.Logf("%-32q paths %v: %d matches in %d files searched, %d prefiltered: the same", p, paths, r.TotalMatches, r.Stats.Searched, r.Stats.Prefiltered)
			}
		})
	}
	t.Run("fixture sources", func(t *testing.T) {
		fsys := fstest.MapFS{}
		for i, s := range fixtureSources {
			fsys[fmt.Sprintf("f%02d%s", i, "."+s.lang.Extensions()[0])] = &fstest.MapFile{Data: []byte(s.text), Mode: 0o644}
		}
		for _, p := range []string{"console.log($A)", "console.log($$$)", "foo($$$)", "$F($$$A)", "$A", "require($M)", "function $F($$$) { $$$ }", "return $X"} {
			tmpl := "X($$$A)"
			sameSearch(t, fsys, Request{Pattern: p, Lang: JavaScript, Context: 2}, nil, true)
			sameSearch(t, fsys, Request{Pattern: p, Lang: JavaScript}, &tmpl, true)
		}
	})
}

// dirMapFS loads the files of the language under dir/sub for each sub into memory, so
// that both paths read the same bytes and the comparison does not depend on the disk.
func dirMapFS(t testing.TB, dir string, l Lang, subs []string) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{}
	for _, sub := range subs {
		loadDir(t, fsys, dir, filepath.Join(dir, sub), l)
	}
	return fsys
}

func loadDir(t testing.TB, fsys fstest.MapFS, dir, sub string, l Lang) {
	t.Helper()
	err := filepath.WalkDir(sub, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !l.hasExt(p) {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil // unreadable: both paths would record it alike
		}
		rel, _ := filepath.Rel(dir, p)
		fsys[filepath.ToSlash(rel)] = &fstest.MapFile{Data: b, Mode: 0o644}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// genExpr draws a small expression in the syntax of l, from a grammar every language of
// the property shares: names, numbers, null, comparisons, calls, member access, parens.
func genExpr(t *rapid.T, l Lang, depth int) string {
	null := map[Lang]string{Go: "nil", JavaScript: "null", Python: "None"}[l]
	leaf := []string{"a", "b", "err", "x1", "0", "42", null, `"s"`}
	if depth <= 0 {
		return rapid.SampledFrom(leaf).Draw(t, "leaf")
	}
	switch rapid.IntRange(0, 5).Draw(t, "expr") {
	case 0:
		return rapid.SampledFrom(leaf).Draw(t, "leaf")
	case 1:
		op := rapid.SampledFrom([]string{"==", "!=", "+", "<"}).Draw(t, "op")
		return genExpr(t, l, depth-1) + " " + op + " " + genExpr(t, l, depth-1)
	case 2:
		n := rapid.IntRange(0, 3).Draw(t, "args")
		args := make([]string, n)
		for i := range args {
			args[i] = genExpr(t, l, depth-1)
		}
		f := rapid.SampledFrom([]string{"f", "g", "fmt.Errorf", "log.info"}).Draw(t, "callee")
		return f + "(" + strings.Join(args, ", ") + ")"
	case 3:
		return genExpr(t, l, depth-1) + "." + rapid.SampledFrom([]string{"y", "info", "Errorf"}).Draw(t, "field")
	case 4:
		return "(" + genExpr(t, l, depth-1) + ")"
	}
	return genExpr(t, l, depth-1)
}

// genSource draws a file of statements around generated expressions.
func genSource(t *rapid.T, l Lang) string {
	var b strings.Builder
	if l == Go {
		b.WriteString("package p\n\nfunc f() {\n")
	}
	for range rapid.IntRange(1, 6).Draw(t, "stmts") {
		e := genExpr(t, l, 3)
		ind := map[Lang]string{Go: "\t", JavaScript: "", Python: ""}[l]
		switch rapid.IntRange(0, 3).Draw(t, "stmt") {
		case 0:
			b.WriteString(ind + e + "\n")
		case 1:
			switch l {
			case Go:
				b.WriteString(ind + "if " + e + " {\n" + ind + "\treturn " + genExpr(t, l, 2) + "\n" + ind + "}\n")
			case JavaScript:
				b.WriteString("if (" + e + ") {\n  return " + genExpr(t, l, 2) + ";\n}\n")
			case Python:
				b.WriteString("if " + e + ":\n    " + genExpr(t, l, 2) + "\n")
			}
		case 2:
			b.WriteString(ind + "// " + e + "\n")
			if l == Python {
				b.WriteString("# c\n")
			}
		default:
			b.WriteString(ind + "x = " + e + "\n")
		}
	}
	if l == Go {
		b.WriteString("}\n")
	}
	return b.String()
}

// genPattern draws a pattern: a generated expression with some subexpressions replaced
// by metavariables, or one of a few fixed shapes.
func genPattern(t *rapid.T, l Lang) string {
	if rapid.Bool().Draw(t, "fixed") {
		return rapid.SampledFrom([]string{"$A == $B", "$A == $A", "$F($$$)", "$F($A, $$$B)", "fmt.Errorf($A, $$$)",
			"$X.y", "$A", "f($$$A)", "g($_, $_)", "$A != " + map[Lang]string{Go: "nil", JavaScript: "null", Python: "None"}[l]}).Draw(t, "pattern")
	}
	e := genExpr(t, l, 2)
	for _, v := range []string{"a", "b", "0"} {
		if rapid.Bool().Draw(t, "meta "+v) {
			e = strings.Replace(e, v, rapid.SampledFrom([]string{"$A", "$B", "$_", "$$$C"}).Draw(t, "var"), 1)
		}
	}
	return e
}

// TestCandidatesProperty: over generated Go, JavaScript and Python sources and patterns,
// at every strictness, with and without a rewrite, both paths agree.
func TestCandidatesProperty(t *testing.T) {
	checks, withMatches := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		l := rapid.SampledFrom([]Lang{Go, JavaScript, Python}).Draw(t, "lang")
		fsys := fstest.MapFS{}
		for i := range rapid.IntRange(1, 3).Draw(t, "files") {
			fsys[fmt.Sprintf("f%d%s", i, "."+l.Extensions()[0])] = &fstest.MapFile{Data: []byte(genSource(t, l)), Mode: 0o644}
		}
		req := Request{Pattern: genPattern(t, l), Lang: l, Strictness: Strictness(rapid.IntRange(0, int(Template)).Draw(t, "strictness")), Context: rapid.IntRange(0, 2).Draw(t, "context")}
		var tmpl *string
		if rapid.Bool().Draw(t, "rewrite") {
			s := rapid.SampledFrom([]string{"h($A)", "$$$C\n  z", "q"}).Draw(t, "template")
			tmpl = &s
		}
		if r, _ := sameSearch(t, fsys, req, tmpl, true); r != nil && r.TotalMatches > 0 {
			withMatches++
		}
		checks++
	})
	// The generators must produce matches often enough for the comparison to mean something.
	if withMatches < checks/5 {
		t.Fatalf("only %d of %d generated searches found a match", withMatches, checks)
	}
	t.Logf("%d of %d generated searches found matches", withMatches, checks)
}

// TestLiterals: the prefilter needs every named, non-metavariable leaf and, under cst and
// smart, every exact token that no ellipsis may skip, of at least 2 bytes.
func TestLiterals(t *testing.T) {
	cases := []struct {
		name, pattern string
		lang          Lang
		s             Strictness
		want          []string
	}{
		{"selective_call", "fmt.Errorf($A, $$$)", Go, Smart, []string{"Errorf", "fmt"}},
		{"E55_short_literal_no_prefilter", "f($A)", Go, Smart, nil},
		{"two_byte_named_leaf", "ok($A)", Go, Smart, []string{"ok"}},
		{"no_named_leaf", "$F($$$ARGS)", Go, Smart, nil},
		{"repeated_leaf_once", "a.bcd + bcd", JavaScript, Smart, []string{"bcd"}},
		{"exact_tokens", "if err != nil { return $$$ }", Go, Smart, []string{"err", "nil", "if", "!="}},
		{"operator_smart", "$A == nil", Go, Smart, []string{"nil", "=="}},
		{"operator_cst", "$A == nil", Go, CST, []string{"nil", "=="}},
		{"operator_ast_skippable", "$A == nil", Go, AST, []string{"nil"}},
		{"operator_relaxed_skippable", "$A == nil", Go, Relaxed, []string{"nil"}},
		{"token_after_ellipsis_skippable", "$$$A == nil", Go, Smart, []string{"nil"}},
		// "..." ends a production (a variadic argument): error recovery may insert it.
		{"token_that_can_be_missing", "f($A...)", Go, Smart, nil},
		// PHP's keywords are aliases of case-insensitive patterns: ECHO is an echo node.
		{"case_insensitive_keyword", "echo $A;", PHP, Smart, nil},
		// Ruby's ** is also the alias of an external scanner's token.
		{"aliased_operator", "$A ** $B", Ruby, Smart, nil},
		{"lua_end_can_be_missing", "local function $F() $$$ end", Lua, Smart, []string{"function", "local"}},
		{"string_content", `strings.HasPrefix($S, "/")`, Go, CST, []string{"HasPrefix", "strings"}},
		{"signature_none", "fmt.Errorf($A, $$$)", Go, Signature, nil},
		{"template_none", "fmt.Errorf($A, $$$)", Go, Template, nil},
		{"python", "isinstance($A, $B)", Python, Relaxed, []string{"isinstance"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Compile(c.pattern, c.lang, WithStrictness(c.s))
			if err != nil {
				t.Fatal(err)
			}
			if got := p.p.Literals(minLiteral); !slices.Equal(got, c.want) {
				t.Fatalf("Literals = %q, want %q", got, c.want)
			}
		})
	}
}

// TestLiteralsWithSelector: with a selector only the selected node's leaves and tokens
// count, not those of the context around it (func, return, the braces).
func TestLiteralsWithSelector(t *testing.T) {
	for _, c := range []struct {
		context, selector string
		want              []string
	}{
		{"func t() { $A := $B }", "short_var_declaration", []string{":="}},
		{"func t() { return errors.New($M) }", "call_expression", []string{"errors", "New"}},
	} {
		p, err := Compile(c.context, Go, WithSelector(c.selector))
		if err != nil {
			t.Fatal(err)
		}
		if got := p.p.Literals(minLiteral); !slices.Equal(got, c.want) {
			t.Errorf("%q with %s: Literals = %q, want %q", c.context, c.selector, got, c.want)
		}
	}
	// A file without := is skipped, one with it is searched; with the prefilter off the
	// result is the same.
	fsys := fstest.MapFS{
		"assign.go": {Data: []byte("package p\n\nfunc f() {\n\tx := g()\n\t_ = x\n}\n"), Mode: 0o644},
		"var.go":    {Data: []byte("package p\n\nfunc f() {\n\tvar x = g()\n\t_ = x\n}\n"), Mode: 0o644},
	}
	r, _ := sameSearch(t, fsys, Request{Pattern: "func t() { $A := $B }", Selector: "short_var_declaration", Lang: Go}, nil, true)
	if r.TotalMatches != 1 || r.Stats.Prefiltered != 1 {
		t.Fatalf("%d matches, stats %+v", r.TotalMatches, r.Stats)
	}
}

// TestPrefilterAllLiterals: a file with one literal of the pattern but not another is
// skipped before parsing, and the result is what the search without prefilter finds.
func TestPrefilterAllLiterals(t *testing.T) {
	fsys := fstest.MapFS{
		"only_errorf.go": {Data: []byte("package p\n\nfunc f(t T) { t.Errorf(\"x %d\", 1) }\n")},
		"only_fmt.go":    {Data: []byte("package p\n\nimport \"fmt\"\n\nfunc f() { fmt.Println(1) }\n")},
		"both.go":        {Data: []byte("package p\n\nimport \"fmt\"\n\nfunc f() error { return fmt.Errorf(\"x %d\", 1) }\n")},
		"spaced.go":      {Data: []byte("package p\n\nimport \"fmt\"\n\nfunc f() error { return fmt. /* c */ Errorf(\"y\") }\n")},
	}
	req := Request{Pattern: "fmt.Errorf($A, $$$)", Lang: Go, Backend: candidateBackend}
	on, err := Search(context.Background(), fsys, req)
	if err != nil {
		t.Fatal(err)
	}
	if on.Stats.Prefiltered != 2 || on.Stats.Searched != 2 || on.TotalMatches != 1 || on.Matches[0].File != "both.go" {
		t.Fatalf("stats %+v, %d matches %v", on.Stats, on.TotalMatches, matchKeys(on))
	}
	sameSearch(t, fsys, Request{Pattern: req.Pattern, Lang: Go}, nil, true)
	sameSearch(t, fsys, Request{Pattern: "fmt.Errorf($$$A)", Lang: Go, Strictness: Relaxed}, nil, true)
}

// TestPrefilterMissingTokens: a file whose only "end" or ")" is a missing node that error
// recovery inserted still matches a pattern that spells them out, as ast-grep finds, with
// the prefilter on as off; and a keyword written in upper case matches PHP's echo.
func TestPrefilterMissingTokens(t *testing.T) {
	for _, c := range []struct {
		lang          Lang
		file, pattern string
		src           string
	}{
		{Lua, "a.lua", "local function $F() $$$ end", "local function f()\n  return 1\n"},
		{Go, "v.go", "$F($A...)", "package p\nfunc f() {\n\tg(a...\n}\n"},
		{PHP, "e.php", "echo $A;", "<?php\nECHO \"x\";\n"},
	} {
		t.Run(string(c.lang), func(t *testing.T) {
			fsys := fstest.MapFS{c.file: {Data: []byte(c.src), Mode: 0o644}}
			r, _ := sameSearch(t, fsys, Request{Pattern: c.pattern, Lang: c.lang}, nil, true)
			if r == nil || r.TotalMatches != 1 || r.Stats.Prefiltered != 0 {
				t.Fatalf("%q over %q: %+v", c.pattern, c.src, r)
			}
		})
	}
}

// TestUnparsedFilesReported: a file whose parse does not finish is left out of the result
// and named in it, and the text says so. The Swift grammar's error recovery takes more
// than 30 s over these 26 bytes (ast-grep 0.51.1's Swift grammar parses them in 20 ms);
// the parse is bounded at a second here.
func TestUnparsedFilesReported(t *testing.T) {
	fsys := fstest.MapFS{
		"a.swift": {Data: []byte("foo()\n"), Mode: 0o644},
		"s.swift": {Data: []byte("foo() { sn\n foo() { sn\n  "), Mode: 0o644},
	}
	b := &nativeBackend{factory: nativeParserWithin(time.Second)}
	r, err := Search(context.Background(), fsys, Request{Pattern: "foo()", Lang: Swift, Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	if r.TotalMatches != 1 || r.Stats.Skipped.ParseFailed != 1 || !slices.Equal(r.Stats.Skipped.Unparsed, []string{"s.swift"}) {
		t.Fatalf("%d matches, stats %+v", r.TotalMatches, r.Stats)
	}
	text := FormatSearch(r, 0)
	if !strings.HasSuffix(text, "\n\nNot searched: 1 file whose parse did not finish within 30s or whose syntax tree had over 2^25 nodes: s.swift; no match in it is reported (search it with ast-grep, or check that the code is valid).") {
		t.Fatalf("text:\n%s", text)
	}
	p, err := Rewrite(context.Background(), fsys, Request{Pattern: "foo()", Lang: Swift, Backend: b}, "bar()")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(FormatRewrite(p, nil), "Not searched: 1 file") {
		t.Fatalf("rewrite text:\n%s", FormatRewrite(p, nil))
	}
	many := &Result{Stats: Stats{Skipped: SkipStats{ParseFailed: 7, Unparsed: []string{"1", "2", "3", "4", "5", "6", "7"}}}}
	if got := UnparsedNote(&Result{Stats: Stats{Skipped: SkipStats{ParseFailed: 3}}}); !strings.Contains(got, "3 files whose") || !strings.Contains(got, ":  and 3 more") {
		t.Fatalf("note without names: %s", got)
	}
	if got := UnparsedNote(many); !strings.Contains(got, "7 files whose") || !strings.Contains(got, ": 1, 2, 3, 4, 5 and 2 more; no match in them") {
		t.Fatalf("note: %s", got)
	}
	if UnparsedNote(&Result{}) != "" {
		t.Fatal("a note without unparsed files")
	}
}

// TestExactTokensInTrees attacks the table of exact tokens: over the conformance sources
// and testdata/langs, cut, repeated or truncated at random so that error recovery runs,
// every node of an exact kind has its kind name as its text and none is missing.
func TestExactTokensInTrees(t *testing.T) {
	pool := map[Lang][]string{}
	for _, c := range loadConformance(t) {
		pool[Lang(c.Language)] = append(pool[Lang(c.Language)], c.Source)
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "langs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("testdata", "langs", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if l, ok := LangForPath(e.Name()); ok {
			pool[l] = append(pool[l], string(b))
		}
	}
	langs := map[Lang]bool{}
	checked, missing := 0, 0
	// check parses text (a second at most: some edits send a grammar's error recovery into
	// a long search) and checks its exact-kind nodes.
	check := func(t tb, l Lang, text string) {
		tp, err := nativeParserWithin(time.Second)(l)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		defer tp.Close()
		tree, err := tp.Parse([]byte(text))
		if err != nil {
			return
		}
		g := tp.Grammar()
		for i := range tree.Nodes {
			n := &tree.Nodes[i]
			if n.Missing() {
				missing++
			}
			if n.ChildCount != 0 || int(n.Kind) >= len(g.Exact) || !g.Exact[n.Kind] {
				continue
			}
			langs[l] = true
			checked++
			if got := string(tree.Text(int32(i))); n.Missing() || got != g.Kinds[n.Kind] {
				t.Fatalf("%s: a node of the exact kind %q has the text %q (missing: %v) in\n%s", l, g.Kinds[n.Kind], got, n.Missing(), text)
			}
		}
	}
	ls := slices.Sorted(maps.Keys(pool))
	for _, l := range ls {
		for _, text := range pool[l] {
			check(t, l, text)
		}
	}
	// Every language whose table is not empty but bash, css, javascript, rust and scala,
	// whose sources here use none of their exact tokens.
	if len(langs) < 13 || checked < 150 {
		t.Fatalf("%d exact-kind nodes checked in %d languages (%v): too few", checked, len(langs), slices.Sorted(maps.Keys(langs)))
	}
	t.Logf("unedited: %d exact-kind nodes checked in %d languages (%v)", checked, len(langs), slices.Sorted(maps.Keys(langs)))
	checked, missing = 0, 0
	rapid.Check(t, func(t *rapid.T) {
		for _, l := range ls {
			if !candidateBackend.Supports(l) {
				continue
			}
			text := rapid.SampledFrom(pool[l]).Draw(t, "source")
			for range rapid.IntRange(1, 3).Draw(t, "edits") {
				if len(text) == 0 {
					break
				}
				i := rapid.IntRange(0, len(text)-1).Draw(t, "at")
				j := rapid.IntRange(i, min(len(text), i+40)).Draw(t, "to")
				switch rapid.IntRange(0, 2).Draw(t, "edit") {
				case 0:
					text = text[:i] + text[j:]
				case 1:
					text = text[:j] + text[i:]
				default:
					text = text[:j]
				}
			}
			check(t, l, text)
		}
	})
	if checked < 1000 || missing < 50 {
		t.Fatalf("edited: %d exact-kind nodes checked, %d missing nodes seen: too few", checked, missing)
	}
	t.Logf("edited: %d exact-kind nodes checked; %d missing nodes seen", checked, missing)
}

// deepEquality is `x == x == … == x` with n operators: n nested binary expressions, each
// a candidate of `$A == $B` inside the previous one.
func deepEquality(n int) []byte {
	b := []byte("package p\n\nvar v = x")
	for range n {
		b = append(b, " == x"...)
	}
	return append(b, '\n')
}

// TestDeepNestedCandidates: 100,000 nested candidates are flattened once (the outermost
// subtree holds them all) and each is tried once; the search counts every match and
// builds the first two (each match's text and lines are O(n) here, so building all would
// be quadratic).
func TestDeepNestedCandidates(t *testing.T) {
	const n = 100_000
	fsys := fstest.MapFS{"deep.go": {Data: deepEquality(n)}}
	r, err := Search(context.Background(), fsys, Request{Pattern: "$A == $B", Lang: Go, Backend: candidateBackend, MaxMatches: 2, MaxOutputBytes: math.MaxInt})
	if err != nil {
		t.Fatal(err)
	}
	if r.TotalMatches != n || len(r.Matches) != 2 {
		t.Fatalf("%d matches counted, %d kept; want %d and 2", r.TotalMatches, len(r.Matches), n)
	}
	if m := r.Matches[1]; m.MetaVariables.Single["B"].Text != "x" || m.Range.ByteOffset.End != len(deepEquality(n))-1-len(" == x") {
		t.Fatalf("second match: %+v", m.Range)
	}
}

// BenchmarkDeepNestedCandidates: the time per candidate stays flat from 10,000 to 100,000
// nested candidates (linear), the parse included; one match is built.
func BenchmarkDeepNestedCandidates(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		fsys := fstest.MapFS{"deep.go": {Data: deepEquality(n)}}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				r, err := Search(context.Background(), fsys, Request{Pattern: "$A == $B", Lang: Go, Backend: candidateBackend, MaxMatches: 1, MaxOutputBytes: math.MaxInt})
				if err != nil || r.TotalMatches != n {
					b.Fatal(err, r.TotalMatches)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/candidate")
		})
	}
}
