package patch_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnesskit/harnesskit/patch"
)

func TestChunkOldNew(t *testing.T) {
	tests := []struct {
		name     string
		chunk    patch.Chunk
		old, new []string
	}{
		{name: "mixed", chunk: chunk(nil, false, " a", "-b", "+B", "", "+c", "-d"),
			old: []string{"a", "b", "", "d"}, new: []string{"a", "B", "", "c"}},
		{name: "pure_insertion", chunk: chunk(nil, false, "+x", "+y"), old: []string{}, new: []string{"x", "y"}},
		{name: "deletion_only", chunk: chunk(nil, false, "-x"), old: []string{"x"}, new: []string{}},
		{name: "empty", chunk: patch.Chunk{}, old: []string{}, new: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.old, tc.chunk.Old()); diff != "" {
				t.Errorf("Old() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.new, tc.chunk.New()); diff != "" {
				t.Errorf("New() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEqual(t *testing.T) {
	base := func() *patch.Patch {
		return pt(add("a", "x\n"), upd("b", "c", chunk([]string{"f"}, true, " x", "-y", "+z")), del("d"))
	}
	tests := []struct {
		name   string
		a, b   *patch.Patch
		change func(p *patch.Patch)
		want   bool
	}{
		{name: "both_nil", want: true},
		{name: "nil_and_empty", a: pt(), want: false},
		{name: "empty_and_nil_hunks", a: pt(), b: &patch.Patch{Hunks: []patch.Hunk{}}, want: true},
		{name: "same", a: base(), b: base(), want: true},
		{name: "line_numbers_ignored", a: base(), change: func(p *patch.Patch) {
			p.Hunks[0].Line, p.Hunks[1].Chunks[0].Line, p.Hunks[1].Chunks[0].Lines[1].Line = 3, 4, 5
		}, want: true},
		{name: "nil_and_empty_chunks", a: base(), change: func(p *patch.Patch) { p.Hunks[0].Chunks = []patch.Chunk{} }, want: true},
		{name: "kind", a: base(), change: func(p *patch.Patch) { p.Hunks[2].Kind = patch.AddFile }},
		{name: "path", a: base(), change: func(p *patch.Patch) { p.Hunks[0].Path = "A" }},
		{name: "move", a: base(), change: func(p *patch.Patch) { p.Hunks[1].MoveTo = "" }},
		{name: "contents", a: base(), change: func(p *patch.Patch) { p.Hunks[0].Contents = "x\n\n" }},
		{name: "anchor", a: base(), change: func(p *patch.Patch) { p.Hunks[1].Chunks[0].Anchors = nil }},
		{name: "eof", a: base(), change: func(p *patch.Patch) { p.Hunks[1].Chunks[0].EOF = false }},
		{name: "op", a: base(), change: func(p *patch.Patch) { p.Hunks[1].Chunks[0].Lines[0].Op = patch.Remove }},
		{name: "text", a: base(), change: func(p *patch.Patch) { p.Hunks[1].Chunks[0].Lines[2].Text = "z " }},
		{name: "hunk_count", a: base(), change: func(p *patch.Patch) { p.Hunks = p.Hunks[:2] }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.b
			if tc.change != nil {
				b = base()
				tc.change(b)
			}
			if got := patch.Equal(tc.a, b); got != tc.want {
				t.Errorf("Equal(a, b) = %v, want %v", got, tc.want)
			}
			if got := patch.Equal(b, tc.a); got != tc.want {
				t.Errorf("Equal(b, a) = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		p       *patch.Patch
		wantSub string // "" = valid; else a substring of the message
		section int
		chunk   int
	}{
		{name: "valid", p: pt(add("a", ""), add("b", "x\n\n"), del("c"), upd("d", "e", chunk([]string{" x "}, true, "", "+\r")))},
		{name: "empty_patch", p: pt()},
		{name: "nil_patch", p: nil, wantSub: "nil patch"},
		{name: "unknown_kind", p: pt(patch.Hunk{Kind: 9, Path: "a"}), wantSub: "unknown hunk kind 9", section: 1},
		{name: "empty_path", p: pt(del("")), wantSub: "is empty", section: 1},
		{name: "padded_path", p: pt(del("a "), del(" b")), wantSub: "surrounding whitespace", section: 1},
		{name: "bom_padded_path", p: pt(del("ok"), del("\uFEFFb")), wantSub: "surrounding whitespace", section: 2},
		{name: "path_line_break", p: pt(del("a\nb")), wantSub: "line break", section: 1},
		{name: "path_nul", p: pt(del("a\x00b")), wantSub: "NUL", section: 1},
		{name: "move_on_add", p: pt(patch.Hunk{Kind: patch.AddFile, Path: "a", MoveTo: "b"}), wantSub: "move target", section: 1},
		{name: "chunks_on_delete", p: pt(patch.Hunk{Kind: patch.DeleteFile, Path: "a", Chunks: []patch.Chunk{chunk(nil, false, "+x")}}), wantSub: "chunks", section: 1},
		{name: "contents_on_update", p: pt(patch.Hunk{Kind: patch.UpdateFile, Path: "a", Contents: "x\n", Chunks: []patch.Chunk{chunk(nil, false, "+x")}}), wantSub: "contents", section: 1},
		{name: "unterminated_contents", p: pt(add("a", "x")), wantSub: "must end with a line break", section: 1},
		{name: "bad_move_target", p: pt(upd("a", " b", chunk(nil, false, "+x"))), wantSub: "move target", section: 1},
		{name: "update_without_chunks", p: pt(upd("a", "")), wantSub: "Update file hunk for path 'a' is empty", section: 1},
		{name: "chunk_without_lines", p: pt(upd("a", "", chunk(nil, false, "+x"), chunk([]string{"y"}, true))), wantSub: "does not contain any lines", section: 1, chunk: 2},
		{name: "blank_anchor", p: pt(upd("a", "", chunk([]string{"\t"}, false, "+x"))), wantSub: "only whitespace", section: 1, chunk: 1},
		{name: "empty_anchor", p: pt(upd("a", "", chunk([]string{""}, false, "+x"))), wantSub: "only whitespace", section: 1, chunk: 1},
		{name: "anchor_line_break", p: pt(upd("a", "", chunk([]string{"a\nb"}, false, "+x"))), wantSub: "line break", section: 1, chunk: 1},
		{name: "bad_op", p: pt(upd("a", "", patch.Chunk{Lines: []patch.Line{{Op: '*', Text: "x"}}})), wantSub: "line op", section: 1, chunk: 1},
		{name: "text_line_break", p: pt(upd("a", "", chunk(nil, false, "+x\ny"))), wantSub: "line break", section: 1, chunk: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			if tc.wantSub == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				if got, err := patch.Parse(patch.Format(tc.p)); err != nil || !patch.Equal(got, tc.p) {
					t.Errorf("valid patch does not round-trip: %v\n%s", err, patch.Format(tc.p))
				}
				return
			}
			var pe *patch.Error
			if !errors.As(err, &pe) || pe.Kind != patch.KindInvalid {
				t.Fatalf("Validate() = %v, want *patch.Error of kind invalid", err)
			}
			if !strings.Contains(pe.Msg, tc.wantSub) {
				t.Errorf("Msg = %q, want it to contain %q", pe.Msg, tc.wantSub)
			}
			if pe.Section != tc.section || pe.Chunk != tc.chunk {
				t.Errorf("Section, Chunk = %d, %d; want %d, %d", pe.Section, pe.Chunk, tc.section, tc.chunk)
			}
		})
	}
}

func TestKind(t *testing.T) {
	tests := []struct {
		name         string
		kind         patch.Kind
		str, class   string
		sentinel     error
		prefixOfText string
	}{
		{name: "invalid", kind: patch.KindInvalid, str: "invalid", class: "validation", sentinel: patch.ErrInvalid, prefixOfText: "apply_patch validation failed: "},
		{name: "empty", kind: patch.KindEmpty, str: "empty", class: "validation", sentinel: patch.ErrEmpty, prefixOfText: "apply_patch validation failed: "},
		{name: "blocked", kind: patch.KindBlocked, str: "blocked", class: "blocked", sentinel: patch.ErrBlocked, prefixOfText: "apply_patch blocked: "},
		{name: "missing_file", kind: patch.KindMissingFile, str: "missing_file", class: "verification", sentinel: patch.ErrMissingFile, prefixOfText: "apply_patch verification failed: "},
		{name: "exists", kind: patch.KindExists, str: "exists", class: "verification", sentinel: patch.ErrExists, prefixOfText: "apply_patch verification failed: "},
		{name: "path_conflict", kind: patch.KindPathConflict, str: "path_conflict", class: "verification", sentinel: patch.ErrPathConflict, prefixOfText: "apply_patch verification failed: "},
		{name: "not_found", kind: patch.KindNotFound, str: "not_found", class: "verification", sentinel: patch.ErrNotFound, prefixOfText: "apply_patch verification failed: "},
		{name: "ambiguous", kind: patch.KindAmbiguous, str: "ambiguous", class: "verification", sentinel: patch.ErrAmbiguous, prefixOfText: "apply_patch verification failed: "},
		{name: "overlap", kind: patch.KindOverlap, str: "overlap", class: "verification", sentinel: patch.ErrOverlap, prefixOfText: "apply_patch verification failed: "},
		{name: "changed", kind: patch.KindChanged, str: "changed", class: "verification", sentinel: patch.ErrChanged, prefixOfText: "apply_patch verification failed: "},
		{name: "io", kind: patch.KindIO, str: "io", class: "internal", sentinel: patch.ErrIO, prefixOfText: "apply_patch internal error: "},
		{name: "unknown", kind: 0, str: "kind(0)", class: "internal", sentinel: patch.ErrIO, prefixOfText: "apply_patch internal error: "},
	}
	all := []error{patch.ErrInvalid, patch.ErrEmpty, patch.ErrBlocked, patch.ErrMissingFile, patch.ErrExists,
		patch.ErrPathConflict, patch.ErrNotFound, patch.ErrAmbiguous, patch.ErrOverlap, patch.ErrChanged, patch.ErrIO}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.kind.String(); got != tc.str {
				t.Errorf("String() = %q, want %q", got, tc.str)
			}
			if got := tc.kind.Class(); got != tc.class {
				t.Errorf("Class() = %q, want %q", got, tc.class)
			}
			err := error(&patch.Error{Kind: tc.kind, Path: "a.txt", Msg: "something failed"})
			if got, want := err.Error(), tc.prefixOfText+"something failed"; got != want {
				t.Errorf("Error() = %q, want %q", got, want)
			}
			for _, s := range all {
				if got, want := errors.Is(err, s), s == tc.sentinel; got != want {
					t.Errorf("errors.Is(err, %v) = %v, want %v", s, got, want)
				}
			}
		})
	}
}

func TestErrorUnwrap(t *testing.T) {
	cause := fmt.Errorf("planning: %w", context.Canceled)
	err := fmt.Errorf("apply: %w", &patch.Error{Kind: patch.KindIO, Msg: "Failed to apply changes", Err: cause})
	if !errors.Is(err, patch.ErrIO) || !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is: ErrIO %v, Canceled %v; want both", errors.Is(err, patch.ErrIO), errors.Is(err, context.Canceled))
	}
	var pe *patch.Error
	if !errors.As(err, &pe) || pe.Kind != patch.KindIO {
		t.Fatalf("errors.As failed: %v", err)
	}
	if got := (&patch.Error{Kind: patch.KindIO, Err: cause}).Error(); got != "apply_patch internal error: planning: context canceled" {
		t.Errorf("empty Msg falls back to the cause: got %q", got)
	}
	if got := (&patch.Error{Kind: patch.KindOverlap}).Error(); got != "apply_patch verification failed: overlap" {
		t.Errorf("empty Msg and cause falls back to the kind: got %q", got)
	}
	if errors.Is(patch.ErrImplicitInvocation, patch.ErrNotPatchCommand) || errors.Is(patch.ErrNotPatchCommand, patch.ErrInvalid) {
		t.Error("ParseCommand sentinels must be distinct")
	}
}
