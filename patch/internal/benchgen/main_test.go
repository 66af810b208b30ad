package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/internal/testenv"
	"github.com/harnesskit/harnesskit/patch"
	"github.com/harnesskit/harnesskit/wfs"
)

func TestGenerate(t *testing.T) {
	tests := []struct {
		name    string
		spec    spec
		wantErr bool
	}{
		{name: "issue_size", spec: spec{lines: 100_000, chunks: 1_000, context: 3}},
		{name: "small", spec: spec{lines: 50, chunks: 5, context: 2}},
		{name: "no_context", spec: spec{lines: 10, chunks: 10, context: 0}},
		{name: "too_dense", spec: spec{lines: 10, chunks: 5, context: 3}, wantErr: true},
		{name: "no_chunks", spec: spec{lines: 10, chunks: 0, context: 1}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file, text, expected, err := generate(tc.spec, "file.txt")
			if tc.wantErr {
				if err == nil {
					t.Fatal("generate succeeded; want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(file, "\n"); got != tc.spec.lines {
				t.Fatalf("file has %d lines, want %d", got, tc.spec.lines)
			}
			p, err := patch.Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(p.Hunks[0].Chunks); n != tc.spec.chunks {
				t.Fatalf("patch has %d chunks, want %d", n, tc.spec.chunks)
			}
			// The patch applies exactly, chunk by chunk, and yields expected.txt.
			m := wfs.NewMemFS()
			root := testenv.Abs("/w")
			m.WriteFile(filepath.Join(root, "file.txt"), []byte(file), 0o644)
			a, err := patch.New(m, root)
			if err != nil {
				t.Fatal(err)
			}
			res, err := a.Apply(context.Background(), text)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res.Report {
				if r.Strategy != "exact" {
					t.Fatalf("chunk %d located by %s, want exact", r.Chunk, r.Strategy)
				}
			}
			got, _ := m.ReadFile(filepath.Join(root, "file.txt"))
			if string(got) != expected {
				t.Fatal("applying the patch does not give expected.txt")
			}
		})
	}
}
