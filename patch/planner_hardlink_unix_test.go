//go:build unix

package patch_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

// Two hard links are one file: updating both names in one patch would write two separate
// files (each commit renames a new file over its name), so half of each change is lost.
func TestAttackHardLinksAreOneFile(t *testing.T) {
	dir, a := osApplier(t)
	f, h := filepath.Join(dir, "f.txt"), filepath.Join(dir, "hard.txt")
	if err := os.WriteFile(f, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(f, h); err != nil {
		t.Skipf("hard links not supported here: %v", err)
	}
	text := "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+A\n*** Update File: hard.txt\n@@\n-b\n+B\n*** End Patch\n"
	_, err := a.Apply(context.Background(), text)
	var pe *patch.Error
	if !errors.As(err, &pe) || pe.Kind != patch.KindPathConflict {
		t.Fatalf("Apply error = %v, want kind path_conflict", err)
	}
	for _, p := range []string{f, h} {
		b, err := os.ReadFile(p)
		if err != nil || string(b) != "a\nb\n" {
			t.Errorf("%s = %q, %v; want it unchanged", p, b, err)
		}
	}
	fi, _ := os.Stat(f)
	hi, _ := os.Stat(h)
	if !os.SameFile(fi, hi) {
		t.Errorf("the hard link was broken")
	}
}

// A Move onto a hard link of the source names an existing destination.
func TestAttackMoveOntoHardLinkRefused(t *testing.T) {
	dir, a := osApplier(t)
	f, h := filepath.Join(dir, "f.txt"), filepath.Join(dir, "hard.txt")
	if err := os.WriteFile(f, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(f, h); err != nil {
		t.Skipf("hard links not supported here: %v", err)
	}
	text := "*** Begin Patch\n*** Update File: f.txt\n*** Move to: hard.txt\n@@\n-a\n+A\n*** End Patch\n"
	_, err := a.Apply(context.Background(), text)
	var pe *patch.Error
	if !errors.As(err, &pe) || pe.Kind != patch.KindExists {
		t.Fatalf("Apply error = %v, want kind exists", err)
	}
	for _, p := range []string{f, h} {
		if b, err := os.ReadFile(p); err != nil || string(b) != "a\nb\n" {
			t.Errorf("%s = %q, %v; want it unchanged", p, b, err)
		}
	}
}
