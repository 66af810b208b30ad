package main

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestStats(t *testing.T) {
	tests := []struct {
		name     string
		in       []time.Duration
		mean, sd float64
	}{
		{name: "constant", in: []time.Duration{2 * time.Millisecond, 2 * time.Millisecond}, mean: 2, sd: 0},
		{name: "spread", in: []time.Duration{time.Millisecond, 3 * time.Millisecond}, mean: 2, sd: math.Sqrt2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, sd := stats(tc.in)
			if math.Abs(m-tc.mean) > 1e-9 || math.Abs(sd-tc.sd) > 1e-9 {
				t.Fatalf("stats = %v, %v; want %v, %v", m, sd, tc.mean, tc.sd)
			}
		})
	}
}

func TestRun(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake appliers are shell scripts")
	}
	src := t.TempDir()
	for name, data := range map[string]string{"file.txt": "a\n", "patch.txt": "p\n", "expected.txt": "A\n"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// good copies expected.txt over file.txt; lazy leaves the file alone.
	good := filepath.Join(src, "good.sh")
	os.WriteFile(good, []byte("#!/bin/sh\ncat > /dev/null\ncp \"$1\" file.txt\n"), 0o755)
	lazy := filepath.Join(src, "lazy.sh")
	os.WriteFile(lazy, []byte("#!/bin/sh\ncat > /dev/null\n"), 0o755)
	expected := filepath.Join(src, "expected.txt")
	tests := []struct {
		name    string
		cmds    []string
		wantErr string
	}{
		{name: "two_good_appliers", cmds: []string{"one=" + good + " " + expected, "two=" + good + " " + expected}},
		{name: "wrong_result_refused", cmds: []string{"one=" + good + " " + expected, "lazy=" + lazy}, wantErr: "lazy did not produce expected.txt"},
		{name: "failing_command", cmds: []string{"bad=" + filepath.Join(src, "missing.sh")}, wantErr: "bad:"},
		{name: "malformed_cmd", cmds: []string{"no-equals-sign"}, wantErr: "want NAME=COMMAND"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := run(src, 2, 1, tc.cmds)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatal(err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v; want it to contain %q", err, tc.wantErr)
			}
		})
	}
}
