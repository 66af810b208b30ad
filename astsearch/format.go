package astsearch

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// cut shortens s to n characters plus "...", showing line breaks as `\n`.
func cut(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "..."
}

// count writes n with the singular or the plural noun: "1 match", "0 matches".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// FormatSearch renders a search result as text for a model, in the layout of the
// oh-my-opencode-slim plugin's ast_grep_search tool, plus context lines when context > 0
// (`  <line>- <text>` around `  <line>: <text>`). The text is prose, not a contract.
func FormatSearch(r *Result, context int) string {
	if len(r.Matches) == 0 && r.Truncated {
		// Say what cut the result: "No matches found." would be false.
		if r.TotalMatches > 0 {
			s := fmt.Sprintf("Found %s in 0 files (output truncated: %s)", count(r.TotalMatches, "match", "matches"), r.TruncatedReason)
			if r.TruncatedReason == "max_output_bytes" {
				s += "; none is shown: the first one alone exceeds the output limit, so narrow the pattern or the paths"
			}
			return s
		}
		return fmt.Sprintf("No matches found before the search stopped (output truncated: %s); search fewer paths to see whether there are any", r.TruncatedReason)
	}
	if len(r.Matches) == 0 {
		s := "No matches found."
		if r.Hint != "" {
			s += "\n\n" + r.Hint
		}
		return s + unparsedTrailer(r)
	}
	var b strings.Builder
	var cur string
	for _, m := range r.Matches {
		if m.File != cur || b.Len() == 0 {
			cur = m.File
			fmt.Fprintf(&b, "\n%s:\n", m.File)
		}
		if context > 0 {
			lines := strings.Split(strings.TrimSuffix(m.Lines, "\n"), "\n")
			first := m.Range.Start.Line - min(context, m.Range.Start.Line)
			for i, l := range lines {
				n := first + i
				sep := "-"
				if n >= m.Range.Start.Line && n <= m.Range.End.Line {
					sep = ":"
				}
				fmt.Fprintf(&b, "  %d%s %s\n", n+1, sep, strings.TrimRight(l, "\r"))
			}
			continue
		}
		fmt.Fprintf(&b, "  %d: %s\n", m.Range.Start.Line+1, cut(m.Text, 100))
	}
	fmt.Fprintf(&b, "\nFound %s in %s", count(r.TotalMatches, "match", "matches"), count(r.Files, "file", "files"))
	if r.Truncated {
		fmt.Fprintf(&b, " (output truncated: %s)", r.TruncatedReason)
		b.WriteString(truncatedAdvice(r))
	}
	return b.String() + unparsedTrailer(r)
}

// UnparsedNote says which files a search could not parse and so did not search (the
// first five by name), or returns "" when it parsed every file it read.
func UnparsedNote(r *Result) string {
	files := r.Stats.Skipped.Unparsed
	n := r.Stats.Skipped.ParseFailed
	if n == 0 {
		return ""
	}
	shown := files[:min(len(files), 5)]
	names := strings.Join(shown, ", ")
	if n > len(shown) {
		names += fmt.Sprintf(" and %d more", n-len(shown))
	}
	them := "them"
	if n == 1 {
		them = "it"
	}
	return fmt.Sprintf("not searched: %s whose parse did not finish within %s or whose syntax tree had over 2^25 nodes: %s; no match in %s is reported (search %s with ast-grep, or check that the code is valid)",
		count(n, "file", "files"), ParseTimeout, names, them, them)
}

func unparsedTrailer(r *Result) string {
	if note := UnparsedNote(r); note != "" {
		return "\n\n" + strings.ToUpper(note[:1]) + note[1:] + "."
	}
	return ""
}

// truncatedAdvice says, after a truncated result's count, how many matches the text holds
// and what to do for the rest, so that a cap is never taken for the whole answer.
func truncatedAdvice(r *Result) string {
	if r.TruncatedReason == "timeout" {
		return fmt.Sprintf("; the search stopped at its time limit and left files unsearched (%d shown); search fewer paths", len(r.Matches))
	}
	return fmt.Sprintf("; only the first %d are shown: narrow the pattern or the paths to see the rest", len(r.Matches))
}

// FormatRewrite renders a rewrite plan as text for a model: per file the replacements
// (`  <line>: "<original>" → "<replacement>"`) and, for a dry run (a == nil), the unified
// diff; then `[DRY RUN] N replacements in M files` or `[APPLIED] N replacements in M
// files`, counting the edits actually written.
func FormatRewrite(p *Plan, a *Applied) string {
	if len(p.Files) == 0 {
		return "No matches found for replacement." + unparsedTrailer(&p.Result)
	}
	var b strings.Builder
	edits := 0
	for _, f := range p.Files {
		fmt.Fprintf(&b, "%s:\n", f.Path)
		for _, e := range f.Edits {
			fmt.Fprintf(&b, "  %d: %q → %q\n", e.Line+1, cut(e.Original, 60), cut(e.Replacement, 60))
		}
		for _, e := range f.Dropped {
			fmt.Fprintf(&b, "  %d: %q [dropped: overlaps an earlier edit]\n", e.Line+1, cut(e.Original, 60))
		}
		edits += len(f.Edits)
		if a == nil {
			b.WriteString(f.Diff)
		}
		b.WriteByte('\n')
	}
	if a == nil {
		fmt.Fprintf(&b, "[DRY RUN] %s in %s\nRun again with dryRun=false to apply the changes.", count(edits, "replacement", "replacements"), count(len(p.Files), "file", "files"))
		return b.String() + unparsedTrailer(&p.Result)
	}
	fmt.Fprintf(&b, "[APPLIED] %s in %s", count(a.Edits, "replacement", "replacements"), count(len(a.Files), "file", "files"))
	return b.String() + unparsedTrailer(&p.Result)
}

var goSelectorCall = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*\((\$\$?\$?[A-Z_][A-Z0-9_]*|[^,()]*)?\)$`)

// EmptyResultHint returns advice for a search that found nothing, or "".
func EmptyResultHint(pattern string, lang Lang, hasError bool) string {
	p := strings.TrimSpace(pattern)
	switch lang {
	case Python:
		if (strings.HasPrefix(p, "class ") || strings.HasPrefix(p, "def ") || strings.HasPrefix(p, "async def ")) && strings.HasSuffix(p, ":") {
			return "Hint: remove the trailing colon. In Python a pattern such as `def $FUNC($$$)` matches the whole function; `def $FUNC($$$):` matches nothing."
		}
	case JavaScript, TypeScript, TSX:
		rest := strings.TrimPrefix(strings.TrimPrefix(p, "export "), "async ")
		if name, ok := strings.CutPrefix(rest, "function "); ok && !strings.ContainsAny(name, "( {") {
			return "Hint: a function pattern needs its parameters and body: `function " + name + "($$$) { $$$ }`."
		}
	case Go:
		if goSelectorCall.MatchString(p) {
			return "Hint: in Go, `pkg.F()`, `pkg.F($X)` and `pkg.F($$$)` parse as type conversions and match no calls; use `$F($$$ARGS)` or `" + p[:strings.IndexByte(p, '(')] + "($A, $$$)`."
		}
	}
	if hasError {
		return "Hint: the pattern did not parse cleanly (it contains an ERROR node); a pattern must be complete, valid " + strconv.Quote(string(lang)) + " code."
	}
	return ""
}
