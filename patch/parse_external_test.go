package patch_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/harnesskit/harnesskit/patch"
)

// Builders for expected patches; Line fields stay 0 because Equal ignores them.

func add(path, contents string) patch.Hunk {
	return patch.Hunk{Kind: patch.AddFile, Path: path, Contents: contents}
}

func del(path string) patch.Hunk { return patch.Hunk{Kind: patch.DeleteFile, Path: path} }

func upd(path, moveTo string, chunks ...patch.Chunk) patch.Hunk {
	return patch.Hunk{Kind: patch.UpdateFile, Path: path, MoveTo: moveTo, Chunks: chunks}
}

// chunk builds a chunk from body lines written with their prefix ("" = empty context line).
func chunk(anchors []string, eof bool, body ...string) patch.Chunk {
	c := patch.Chunk{Anchors: anchors, EOF: eof}
	for _, b := range body {
		if b == "" {
			c.Lines = append(c.Lines, patch.Line{Op: patch.Context})
			continue
		}
		c.Lines = append(c.Lines, patch.Line{Op: patch.Op(b[0]), Text: b[1:]})
	}
	return c
}

func pt(hunks ...patch.Hunk) *patch.Patch { return &patch.Patch{Hunks: hunks} }

// ignoreLines makes cmp.Diff agree with patch.Equal.
var ignoreLines = cmp.Options{
	cmpopts.IgnoreFields(patch.Hunk{}, "Line"),
	cmpopts.IgnoreFields(patch.Chunk{}, "Line"),
	cmpopts.IgnoreFields(patch.Line{}, "Line"),
	cmpopts.EquateEmpty(),
}

func lines(ls ...string) string { return strings.Join(ls, "\n") }

// Invalid-patch messages, as the tests expect them.
const (
	firstLineMsg = "Invalid patch: The first line of the patch must be '*** Begin Patch'"
	lastLineMsg  = "Invalid patch: The last line of the patch must be '*** End Patch'"
	validHeaders = " is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'"
	unexpected   = "'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		want     *patch.Patch // checked when wantMsg is ""
		wantMsg  string       // exact message without the class prefix
		wantLine int          // Error.Line, checked when wantMsg is set
	}{
		{name: "E1_not_a_patch", text: "bad", wantMsg: firstLineMsg, wantLine: 1},
		{name: "E1_empty_text", text: "", wantMsg: firstLineMsg, wantLine: 1},
		{name: "E1_blank_text", text: " \n\t\n", wantMsg: firstLineMsg, wantLine: 3},
		{name: "E2_missing_end", text: "*** Begin Patch\nbad", wantMsg: lastLineMsg, wantLine: 2},
		{name: "E2_begin_only", text: "*** Begin Patch\n", wantMsg: lastLineMsg, wantLine: 1},
		{name: "E2_end_before_begin", text: "*** End Patch\n*** Begin Patch", wantMsg: firstLineMsg, wantLine: 1},
		{
			name: "E3_padded_markers_spaces",
			text: "  *** Begin Patch  \n*** Delete File: a\n  *** End Patch  ",
			want: pt(del("a")),
		},
		{
			name: "E3_padded_markers_tabs_and_blank_lines",
			text: "\n\n\t*** Begin Patch\t\n*** Delete File: a\n\t*** End Patch\t\n\n",
			want: pt(del("a")),
		},
		{
			name:     "E4_update_without_chunks",
			text:     lines("*** Begin Patch", "*** Update File: test.py", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 2: Update file hunk for path 'test.py' is empty",
			wantLine: 2,
		},
		{name: "E5_empty_patch", text: "*** Begin Patch\n*** End Patch", want: pt()},
		{
			name: "E6_add_delete_update_move",
			text: lines("*** Begin Patch", "*** Add File: path/add.py", "+abc", "+def",
				"*** Delete File: path/delete.py", "*** Update File: path/update.py",
				"*** Move to: path/update2.py", "@@ def f():", "-    pass", "+    return 123", "*** End Patch"),
			want: pt(add("path/add.py", "abc\ndef\n"), del("path/delete.py"),
				upd("path/update.py", "path/update2.py", chunk([]string{"def f():"}, false, "-    pass", "+    return 123"))),
		},
		{
			name: "E7_update_then_add",
			text: lines("*** Begin Patch", "*** Update File: file2.py", "@@", "+line", "*** Add File: x", "+y", "*** End Patch"),
			want: pt(upd("file2.py", "", chunk(nil, false, "+line")), add("x", "y\n")),
		},
		{
			name: "E8_first_chunk_without_header",
			text: lines("*** Begin Patch", "*** Update File: file2.py", " import foo", "+bar", "*** End Patch"),
			want: pt(upd("file2.py", "", chunk(nil, false, " import foo", "+bar"))),
		},
		{
			name: "E9_absolute_paths_verbatim",
			text: lines("*** Begin Patch", "*** Delete File: /tmp/root/a.txt", "*** Update File: /tmp/root/b.txt",
				"@@", "-x", "+y", "*** Add File: C:\\work\\c.txt", "*** End Patch"),
			want: pt(del("/tmp/root/a.txt"), upd("/tmp/root/b.txt", "", chunk(nil, false, "-x", "+y")), add(`C:\work\c.txt`, "")),
		},
		{
			name: "E10_heredoc_bare",
			text: lines("<<EOF", "*** Begin Patch", "*** Delete File: a", "*** End Patch", "EOF"),
			want: pt(del("a")),
		},
		{
			name: "E10_heredoc_single_quotes",
			text: lines("<<'EOF'", "*** Begin Patch", "*** Delete File: a", "*** End Patch", "EOF"),
			want: pt(del("a")),
		},
		{
			name: "E10_heredoc_double_quotes",
			text: lines(`<<"EOF"`, "*** Begin Patch", "*** Delete File: a", "*** End Patch", "EOF\n"),
			want: pt(del("a")),
		},
		{
			name: "E10_heredoc_blank_lines_inside",
			text: lines("<<EOF", "", "*** Begin Patch", "*** Delete File: a", "*** End Patch", "  ", "EOF"),
			want: pt(del("a")),
		},
		{
			name:     "E11_heredoc_mismatched_quotes",
			text:     lines(`<<"EOF'`, "*** Begin Patch", "*** Delete File: a", "*** End Patch", "EOF"),
			wantMsg:  firstLineMsg,
			wantLine: 1,
		},
		{
			name:     "E11_heredoc_wrong_closing_word",
			text:     lines(`<<EOF`, "*** Begin Patch", "*** Delete File: a", "*** End Patch", "END"),
			wantMsg:  firstLineMsg,
			wantLine: 1,
		},
		{
			name:     "E12_heredoc_without_end_marker",
			text:     lines("<<'EOF'", "*** Begin Patch", "*** Delete File: a", "*** Delete File: b", "EOF"),
			wantMsg:  lastLineMsg,
			wantLine: 4,
		},
		{
			name:     "E12_heredoc_too_short",
			text:     lines("<<EOF", "*** Begin Patch", "EOF"),
			wantMsg:  firstLineMsg,
			wantLine: 1,
		},
		{
			name:     "E13_bad_hunk_header",
			text:     lines("*** Begin Patch", "bad", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 2: 'bad'" + validHeaders,
			wantLine: 2,
		},
		{
			name:     "E13_unknown_marker",
			text:     lines("*** Begin Patch", "  *** Frobnicate File: foo  ", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 2: '*** Frobnicate File: foo'" + validHeaders,
			wantLine: 2,
		},
		{
			name:     "E14_garbage_after_complete_chunk",
			text:     lines("*** Begin Patch", "*** Update File: a", "@@", "-a", "+b", "bad", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 6: Expected update hunk to start with a @@ context marker, got: 'bad'",
			wantLine: 6,
		},
		{
			name:     "E14_body_line_after_eof_chunk",
			text:     lines("*** Begin Patch", "*** Update File: a", "@@", "-a", "*** End of File", "+b", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 6: Expected update hunk to start with a @@ context marker, got: '+b'",
			wantLine: 6,
		},
		{
			name:     "E15_chunk_header_then_end",
			text:     lines("*** Begin Patch", "*** Update File: a", "@@", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 4: Update hunk does not contain any lines",
			wantLine: 4,
		},
		{
			name:     "E15_chunk_header_then_end_of_file",
			text:     lines("*** Begin Patch", "*** Update File: a", "@@", "*** End of File", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 4: Update hunk does not contain any lines",
			wantLine: 4,
		},
		{
			name:     "E15_chunk_header_then_next_header",
			text:     lines("*** Begin Patch", "*** Update File: a", "@@ x", "*** Delete File: b", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 4: Update hunk does not contain any lines",
			wantLine: 4,
		},
		{
			name:     "E16_unexpected_first_body_line",
			text:     lines("*** Begin Patch", "*** Update File: a", "@@", "bad", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 4: Unexpected line found in update hunk: 'bad" + unexpected,
			wantLine: 4,
		},
		{
			name: "E17_zero_length_line_is_empty_context",
			text: lines("*** Begin Patch", "*** Update File: a", "@@", " x", "", "-y", "*** End Patch"),
			want: pt(upd("a", "", chunk(nil, false, " x", "", "-y"))),
		},
		{
			name:     "E17_interior_end_marker_is_a_bad_header",
			text:     lines("*** Begin Patch", "*** Update File: a", "@@", "-x", "*** End Patch", "+y", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 5: '*** End Patch'" + validHeaders,
			wantLine: 5,
		},
		{
			name: "E18_pure_insertion_at_end_of_file",
			text: lines("*** Begin Patch", "*** Update File: a", "@@", "+line", "*** End of File", "*** End Patch"),
			want: pt(upd("a", "", chunk(nil, true, "+line"))),
		},
		{
			name: "E18_end_of_file_with_trailing_space",
			text: lines("*** Begin Patch", "*** Update File: a", "@@", " x", "+line", "*** End of File \t", "*** End Patch"),
			want: pt(upd("a", "", chunk(nil, true, " x", "+line"))),
		},
		{
			name: "E33_cat_heredoc_crlf_keeps_eof",
			text: strings.ReplaceAll(lines("cat <<'PATCH'", "*** Begin Patch", "*** Update File: a", "@@", " first",
				"-second", "+SECOND", "*** End of File", "*** End Patch", "PATCH", ""), "\n", "\r\n"),
			want: pt(upd("a", "", chunk(nil, true, " first", "-second", "+SECOND"))),
		},
		{
			name: "E33_apply_patch_heredoc_any_word",
			text: lines("apply_patch <<-  \"END_1\"  ", "*** Begin Patch", "*** Delete File: a", "*** End Patch", "END_1"),
			want: pt(del("a")),
		},
		{
			name: "E34_context_line_looking_like_end_marker",
			text: lines("*** Begin Patch", "*** Update File: a", "@@", " *** End Patch", "-x", "*** End Patch"),
			want: pt(upd("a", "", chunk(nil, false, " *** End Patch", "-x"))),
		},
		{
			name: "E34_markers_with_two_trailing_spaces",
			text: lines("*** Begin Patch  ", "*** Delete File: a", "*** End Patch  "),
			want: pt(del("a")),
		},
		{
			name:     "E35_garbage_as_first_chunk_line",
			text:     lines("*** Begin Patch", "*** Update File: a", "garbage", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 3: Expected update hunk to start with a @@ context marker, got: 'garbage'",
			wantLine: 3,
		},
		{
			name:     "E35_garbage_after_add_body",
			text:     lines("*** Begin Patch", "*** Add File: a", "+x", "garbage", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 4: 'garbage'" + validHeaders,
			wantLine: 4,
		},
		{
			name:     "E35_garbage_after_delete",
			text:     lines("*** Begin Patch", "*** Delete File: a", " garbage ", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 3: 'garbage'" + validHeaders,
			wantLine: 3,
		},
		{
			name:     "E35_text_after_end",
			text:     lines("*** Begin Patch", "*** Delete File: a", "*** End Patch", "garbage"),
			wantMsg:  lastLineMsg,
			wantLine: 4,
		},
		{
			name: "E35_update_body_without_chunk_header",
			text: lines("*** Begin Patch", "*** Update File: a", "-x", "+y", "@@ b", " c", "+d", "*** End Patch"),
			want: pt(upd("a", "", chunk(nil, false, "-x", "+y"), chunk([]string{"b"}, false, " c", "+d"))),
		},
		{
			name: "E79_stacked_anchors",
			text: lines("*** Begin Patch", "*** Update File: a.py", "@@ class A", "@@ def m():", "-    x", "+    y", "*** End Patch"),
			want: pt(upd("a.py", "", chunk([]string{"class A", "def m():"}, false, "-    x", "+    y"))),
		},
		{
			name: "E79_stacked_bare_marker_adds_no_anchor",
			text: lines("*** Begin Patch", "*** Update File: a.py", "@@", "@@ def m():", "@@ \t", "-x", "*** End Patch"),
			want: pt(upd("a.py", "", chunk([]string{"def m():"}, false, "-x"))),
		},
		{
			name: "E81_marker_with_trailing_space_only",
			text: lines("*** Begin Patch", "*** Update File: a", "@@ ", "+x", "*** End Patch"),
			want: pt(upd("a", "", chunk(nil, false, "+x"))),
		},
		{
			name: "E82_unified_diff_range_is_an_anchor",
			text: lines("*** Begin Patch", "*** Update File: a", "@@ -12,7 +12,8 @@", "+x", "*** End Patch"),
			want: pt(upd("a", "", chunk([]string{"-12,7 +12,8 @@"}, false, "+x"))),
		},
		{
			name: "E83_anchor_without_space",
			text: lines("*** Begin Patch", "*** Update File: a", "@@anchor", "+x", "*** End Patch"),
			want: pt(upd("a", "", chunk([]string{"anchor"}, false, "+x"))),
		},
		{
			name: "E83_anchor_text_verbatim_after_one_space",
			text: lines("*** Begin Patch", "*** Update File: a", "@@   indented ", "+x", "*** End Patch"),
			want: pt(upd("a", "", chunk([]string{"  indented "}, false, "+x"))),
		},
		{
			name: "E84_header_without_space_and_with_extra_spaces",
			text: lines("*** Begin Patch", "*** Add File:foo.txt", "+x", "*** Update File:   foo.txt", "*** Move to:\tbar.txt ", "@@", "-x", "*** End Patch"),
			want: pt(add("foo.txt", "x\n"), upd("foo.txt", "bar.txt", chunk(nil, false, "-x"))),
		},
		{
			name: "E85_blank_lines_between_hunks_and_chunks",
			text: lines("*** Begin Patch", "", "*** Add File: a", "+x", "", "  ", "*** Update File: b", "@@", "-x", "\t",
				"@@ y", "+z", " ", "", "*** Delete File: c", "", "*** End Patch"),
			want: pt(add("a", "x\n"), upd("b", "", chunk(nil, false, "-x"), chunk([]string{"y"}, false, "+z", " ", "")), del("c")),
		},
		{
			name:     "E86_blank_line_inside_add_body",
			text:     lines("*** Begin Patch", "*** Add File: a", "+a", "", "  ", "+b", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 4: Unexpected blank line in Add File body; write an empty added line as '+'",
			wantLine: 4,
		},
		{
			name: "E86_empty_added_line",
			text: lines("*** Begin Patch", "*** Add File: a", "+a", "+", "+b", "*** End Patch"),
			want: pt(add("a", "a\n\nb\n")),
		},
		{
			name: "E87_space_padded_header_after_chunk_is_context",
			text: lines("*** Begin Patch", "*** Update File: a", "@@", "-x", " *** Update File: b", "+y", "*** End Patch"),
			want: pt(upd("a", "", chunk(nil, false, "-x", " *** Update File: b", "+y"))),
		},
		{
			name: "E87_tab_padded_header_at_chunk_boundary",
			text: lines("*** Begin Patch", "*** Update File: a", "@@", "-x", "\t*** Update File: b", "@@", "+y", "*** End Patch"),
			want: pt(upd("a", "", chunk(nil, false, "-x")), upd("b", "", chunk(nil, false, "+y"))),
		},
		{
			name: "E87_padded_header_after_add_and_begin",
			text: lines("*** Begin Patch", "  *** Add File: a", "+x", "  *** Delete File: b", "*** End Patch"),
			want: pt(add("a", "x\n"), del("b")),
		},
		{
			name:     "E88_begin_marker_inside_body",
			text:     lines("*** Begin Patch", "*** Delete File: a", "*** Begin Patch", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 3: '*** Begin Patch'" + validHeaders,
			wantLine: 3,
		},
		{
			name:     "E89_update_with_only_move",
			text:     lines("*** Begin Patch", "*** Update File: a", "*** Move to: b", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 2: Update file hunk for path 'a' is empty",
			wantLine: 2,
		},
		{
			name:     "E116_nul_byte_in_path",
			text:     lines("*** Begin Patch", "*** Delete File: a\x00b", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 2: path contains a NUL byte",
			wantLine: 2,
		},
		{
			name:     "E116_nul_byte_in_move_path",
			text:     lines("*** Begin Patch", "*** Update File: a", "*** Move to: b\x00", "@@", "+x", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 3: path contains a NUL byte",
			wantLine: 3,
		},
		{
			name: "E125_add_without_lines",
			text: lines("*** Begin Patch", "*** Add File: empty.txt", "*** End Patch"),
			want: pt(add("empty.txt", "")),
		},
		{
			name: "R2_crlf_bom_and_lone_cr_content",
			text: "\uFEFF*** Begin Patch\r\n*** Update File: a\r\n@@\r\n-x\r\r\n+y\r\n*** End Patch\r\n",
			want: pt(upd("a", "", chunk(nil, false, "-x\r", "+y"))),
		},
		{
			name:     "R4_header_with_empty_path",
			text:     lines("*** Begin Patch", "*** Add File:   ", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 2: '*** Add File:'" + validHeaders,
			wantLine: 2,
		},
		{
			name:     "R6_move_line_with_empty_target_ends_hunk",
			text:     lines("*** Begin Patch", "*** Update File: a", "*** Move to:", "@@", "+x", "*** End Patch"),
			wantMsg:  "Invalid patch hunk on line 2: Update file hunk for path 'a' is empty",
			wantLine: 2,
		},
		{
			name:     "R9_line_numbers_count_trimmed_and_unwrapped_lines",
			text:     lines("", "  ", "<<'EOF'", "", "*** Begin Patch", "*** Update File: a", "*** End Patch", "EOF", ""),
			wantMsg:  "Invalid patch hunk on line 6: Update file hunk for path 'a' is empty",
			wantLine: 6,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := patch.Parse(tc.text)
			if tc.wantMsg != "" {
				var pe *patch.Error
				if !errors.As(err, &pe) {
					t.Fatalf("Parse() = %v, %v; want *patch.Error %q", got, err, tc.wantMsg)
				}
				if pe.Kind != patch.KindInvalid || !errors.Is(err, patch.ErrInvalid) {
					t.Errorf("Kind = %v, want invalid (errors.Is ErrInvalid: %v)", pe.Kind, errors.Is(err, patch.ErrInvalid))
				}
				if pe.Msg != tc.wantMsg {
					t.Errorf("Msg =\n  %q\nwant\n  %q", pe.Msg, tc.wantMsg)
				}
				if want := "apply_patch validation failed: " + tc.wantMsg; err.Error() != want {
					t.Errorf("Error() = %q, want %q", err.Error(), want)
				}
				if pe.Line != tc.wantLine {
					t.Errorf("Line = %d, want %d", pe.Line, tc.wantLine)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse() error = %v", err)
			}
			if diff := cmp.Diff(tc.want, got, ignoreLines); diff != "" || !patch.Equal(tc.want, got) {
				t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
			}
			// E36: parse → format → parse is the identity on every accepted text.
			again, err := patch.Parse(patch.Format(got))
			if err != nil || !patch.Equal(got, again) {
				t.Errorf("E36: Parse(Format(Parse(x))) = %v, %v; want %v", again, err, got)
			}
		})
	}
}

// TestParseLineNumbers checks that every Line field names the source line it came from.
func TestParseLineNumbers(t *testing.T) {
	text := lines("", "*** Begin Patch", "*** Add File: a", "+x", "", "*** Update File: b", "*** Move to: c",
		"@@ one", "@@ two", " ctx", "-old", "+new", "", "@@", "+tail", "*** End of File", "*** End Patch")
	p, err := patch.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	type pos struct{ What, Line int }
	var got []pos
	for _, h := range p.Hunks {
		got = append(got, pos{1, h.Line})
		for _, c := range h.Chunks {
			got = append(got, pos{2, c.Line})
			for _, l := range c.Lines {
				got = append(got, pos{3, l.Line})
			}
		}
	}
	want := []pos{{1, 3}, {1, 6}, {2, 8}, {3, 10}, {3, 11}, {3, 12}, {3, 13}, {2, 14}, {3, 15}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("line numbers (-want +got):\n%s", diff)
	}
}

// TestParseErrorPosition checks the section, chunk and path a parse error names.
func TestParseErrorPosition(t *testing.T) {
	tests := []struct {
		name                   string
		text                   string
		line, section, chunkNo int
		path                   string
	}{
		{name: "E1_envelope_names_no_section", text: "bad", line: 1},
		{name: "E13_bad_header_names_next_section", text: lines("*** Begin Patch", "*** Delete File: a", "bad", "*** End Patch"), line: 3, section: 2},
		{name: "E4_empty_update_names_its_path", text: lines("*** Begin Patch", "*** Delete File: a", "*** Update File: b", "*** End Patch"), line: 3, section: 2, path: "b"},
		{name: "E16_bad_line_names_chunk", text: lines("*** Begin Patch", "*** Update File: a", "@@", "-x", "@@ y", "bad", "*** End Patch"), line: 6, section: 1, chunkNo: 2, path: "a"},
		{name: "E86_add_blank_names_path", text: lines("*** Begin Patch", "*** Add File: n", "+a", "", "+b", "*** End Patch"), line: 4, section: 1, path: "n"},
		{name: "E116_nul_path_not_echoed", text: lines("*** Begin Patch", "*** Add File: \x00", "*** End Patch"), line: 2, section: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := patch.Parse(tc.text)
			var pe *patch.Error
			if !errors.As(err, &pe) {
				t.Fatalf("Parse() error = %v, want *patch.Error", err)
			}
			got := []any{pe.Line, pe.Section, pe.Chunk, pe.Path}
			want := []any{tc.line, tc.section, tc.chunkNo, tc.path}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Line, Section, Chunk, Path (-want +got):\n%s", diff)
			}
		})
	}
}

// A unified diff is refused with a message that names the format it is and the one expected.
func TestUnifiedDiffRefusedNamingFormats(t *testing.T) {
	diff := "diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
	_, err := patch.Parse(diff)
	var pe *patch.Error
	if !errors.As(err, &pe) || pe.Kind != patch.KindInvalid {
		t.Fatalf("err = %v, want KindInvalid", err)
	}
	for _, want := range []string{"The first line of the patch must be '*** Begin Patch'", "unified diff", "'*** Begin Patch'", "'*** Update File: <path>'"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err.Error(), want)
		}
	}
	if _, err := patch.Parse("bad"); err == nil || strings.Contains(err.Error(), "unified diff") {
		t.Errorf("plain bad text: %v, want no unified-diff note", err)
	}
}
