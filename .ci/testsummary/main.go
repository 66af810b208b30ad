// Command testsummary reads the JSON stream of "go test -json" on standard input and prints,
// for each package, how many tests and subtests passed, failed and were skipped, then every
// skip with the reason the test gave, then the output of every failure. It exits 1 when a
// package failed or did not build, unless that package is named by -allow (comma-separated
// import paths whose failures are reported but tolerated).
//
// CI uses it for the Windows test binaries run under Wine: bash .ci/wine-test.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
}

type pkgResult struct {
	pass, fail, skip int
	result           string // "ok", "FAIL", "skip", "build failed"
	skips, fails     []string
	buildOut         strings.Builder
}

func main() {
	allow := flag.String("allow", "", "comma-separated import paths whose failures do not fail the run")
	flag.Parse()
	allowed := map[string]bool{}
	for _, p := range strings.Split(*allow, ",") {
		if p = strings.TrimSpace(p); p != "" {
			allowed[p] = true
		}
	}
	pkgs, err := read(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	os.Exit(report(os.Stdout, pkgs, allowed))
}

func read(r io.Reader) (map[string]*pkgResult, error) {
	pkgs := map[string]*pkgResult{}
	get := func(name string) *pkgResult {
		p := pkgs[name]
		if p == nil {
			p = &pkgResult{}
			pkgs[name] = p
		}
		return p
	}
	out := map[[2]string][]string{} // (package, test) -> output lines
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			continue // go's own messages between the JSON lines
		}
		switch {
		case e.Action == "build-output":
			get(packageOf(e.ImportPath)).buildOut.WriteString(e.Output)
			continue
		case e.Action == "build-fail":
			get(packageOf(e.ImportPath)).result = "build failed"
			continue
		case e.Package == "":
			continue
		}
		p := get(e.Package)
		key := [2]string{e.Package, e.Test}
		switch e.Action {
		case "output":
			out[key] = append(out[key], e.Output)
		case "pass", "fail", "skip":
			if e.Test == "" {
				if p.result == "" || p.result == "build failed" && e.Action != "fail" {
					p.result = map[string]string{"pass": "ok", "fail": "FAIL", "skip": "no tests"}[e.Action]
				}
				if e.Action == "fail" && p.result == "ok" {
					p.result = "FAIL"
				}
				continue
			}
			switch e.Action {
			case "pass":
				p.pass++
			case "fail":
				p.fail++
				p.fails = append(p.fails, e.Test+"\n"+indent(out[key], 40))
			case "skip":
				p.skip++
				p.skips = append(p.skips, e.Test+": "+reason(out[key]))
			}
			delete(out, key)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	// A package whose test binary crashed leaves its output under the package itself.
	for key, lines := range out {
		if p := pkgs[key[0]]; p != nil && p.result == "FAIL" && key[1] == "" {
			p.fails = append(p.fails, "(package output)\n"+indent(lines, 60))
		}
	}
	return pkgs, nil
}

// packageOf returns the package a build action's import path belongs to: "p [p.test]" and
// "p_test [p.test]" (a test variant, an external test package) are p.
func packageOf(importPath string) string {
	if i := strings.Index(importPath, " ["); i >= 0 && strings.HasSuffix(importPath, ".test]") {
		return strings.TrimSuffix(importPath[i+2:], ".test]")
	}
	return importPath
}

// reason returns what a skipped test printed, without go test's own "=== RUN" and
// "--- SKIP" lines.
func reason(lines []string) string {
	var parts []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ")
}

func indent(lines []string, max int) string {
	var b strings.Builder
	n := 0
	for _, l := range lines {
		if t := strings.TrimSpace(l); t == "" || strings.HasPrefix(t, "=== ") {
			continue
		}
		if n++; n > max {
			b.WriteString("        …\n")
			break
		}
		b.WriteString("        " + strings.TrimRight(l, "\n") + "\n")
	}
	return b.String()
}

func report(w io.Writer, pkgs map[string]*pkgResult, allowed map[string]bool) int {
	names := make([]string, 0, len(pkgs))
	for n := range pkgs {
		names = append(names, n)
	}
	slices.Sort(names)
	status := 0
	var tp, tf, ts int
	fmt.Fprintf(w, "%-60s %5s %5s %5s  %s\n", "package", "pass", "fail", "skip", "result")
	for _, n := range names {
		p := pkgs[n]
		res := p.result
		if res == "" {
			res = "FAIL" // the binary died before reporting
		}
		note := ""
		if res == "FAIL" || res == "build failed" {
			if allowed[n] {
				note = " (tolerated: -allow)"
			} else {
				status = 1
			}
		}
		tp, tf, ts = tp+p.pass, tf+p.fail, ts+p.skip
		fmt.Fprintf(w, "%-60s %5d %5d %5d  %s%s\n", n, p.pass, p.fail, p.skip, res, note)
	}
	fmt.Fprintf(w, "%-60s %5d %5d %5d\n", "total", tp, tf, ts)
	for _, n := range names {
		p := pkgs[n]
		for _, s := range p.skips {
			fmt.Fprintf(w, "SKIP %s %s\n", n, s)
		}
	}
	for _, n := range names {
		p := pkgs[n]
		if p.result == "build failed" {
			fmt.Fprintf(w, "\nBUILD FAILED %s\n%s", n, p.buildOut.String())
		}
		for _, f := range p.fails {
			fmt.Fprintf(w, "\nFAIL %s %s", n, f)
		}
	}
	return status
}
