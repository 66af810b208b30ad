// Command benchgen writes the inputs of the side-by-side speed comparison between
// `harnesskit patch apply` and the Codex CLI's native applier: a large text file, a patch
// with one Update section of many exact chunks spread evenly over it, and the file as it must
// look afterwards.
//
//	go run ./patch/internal/benchgen -dir /tmp/bench            # 100,000 lines, 1,000 chunks
//	go run ./patch/internal/benchgen -dir /tmp/bench -lines 5000 -chunks 50
//
// It writes DIR/file.txt, DIR/patch.txt (paths relative to DIR, so the patch applies with DIR
// as the working directory or root) and DIR/expected.txt. The output is deterministic.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// spec describes one generated case.
type spec struct {
	lines   int // lines in the file
	chunks  int // chunks in the patch, one replaced line each
	context int // context lines on each side of a replaced line
}

// generate returns the file, the patch (updating name) and the expected result. Every file
// line is unique, so each chunk has exactly one exact match, as in the spec's
// BenchmarkApply/1000chunks-100klines.
func generate(s spec, name string) (file, patch, expected string, err error) {
	if s.lines < 1 || s.chunks < 1 || s.context < 0 {
		return "", "", "", errors.New("benchgen: lines and chunks must be positive, context not negative")
	}
	stride := s.lines / s.chunks
	if stride < 2*s.context+1 {
		return "", "", "", fmt.Errorf("benchgen: %d chunks with %d context lines do not fit in %d lines", s.chunks, s.context, s.lines)
	}
	lines := make([]string, s.lines)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %06d: the quick brown fox jumps over the lazy dog %d", i+1, (i*7919)%1000)
	}
	after := append([]string(nil), lines...)
	var p strings.Builder
	p.Grow(s.chunks * (2*s.context + 2) * 64)
	p.WriteString("*** Begin Patch\n*** Update File: " + name + "\n")
	for k := range s.chunks {
		target := k*stride + stride/2
		p.WriteString("@@\n")
		for i := target - s.context; i < target; i++ {
			p.WriteString(" " + lines[i] + "\n")
		}
		changed := fmt.Sprintf("line %06d: CHANGED by chunk %d", target+1, k+1)
		p.WriteString("-" + lines[target] + "\n+" + changed + "\n")
		after[target] = changed
		for i := target + 1; i <= target+s.context && i < s.lines; i++ {
			p.WriteString(" " + lines[i] + "\n")
		}
	}
	p.WriteString("*** End Patch\n")
	return strings.Join(lines, "\n") + "\n", p.String(), strings.Join(after, "\n") + "\n", nil
}

func main() {
	dir := flag.String("dir", "", "output directory (created if missing)")
	var s spec
	flag.IntVar(&s.lines, "lines", 100_000, "lines in the file")
	flag.IntVar(&s.chunks, "chunks", 1_000, "chunks in the patch")
	flag.IntVar(&s.context, "context", 3, "context lines on each side of a change")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: benchgen -dir DIR [-lines N] [-chunks N] [-context N]")
		os.Exit(2)
	}
	if err := run(*dir, s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(dir string, s spec) error {
	file, patch, expected, err := generate(s, "file.txt")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range map[string]string{"file.txt": file, "patch.txt": patch, "expected.txt": expected} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}
