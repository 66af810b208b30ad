package patch_test

import (
	"testing"

	"github.com/harnesskit/harnesskit/patch"
)

func TestFormat(t *testing.T) {
	tests := []struct {
		name string
		p    *patch.Patch
		want string
	}{
		{name: "R11_nil_patch", p: nil, want: "*** Begin Patch\n*** End Patch\n"},
		{name: "R11_no_hunks", p: pt(), want: "*** Begin Patch\n*** End Patch\n"},
		{name: "R11_add_empty_file", p: pt(add("e.txt", "")), want: "*** Begin Patch\n*** Add File: e.txt\n*** End Patch\n"},
		{name: "R11_add_lines", p: pt(add("a.txt", "one\n\n\tthree  \n")),
			want: "*** Begin Patch\n*** Add File: a.txt\n+one\n+\n+\tthree  \n*** End Patch\n"},
		{name: "R11_delete", p: pt(del("old/x.go")), want: "*** Begin Patch\n*** Delete File: old/x.go\n*** End Patch\n"},
		{
			name: "R11_update_move_anchors_eof",
			p: pt(upd("src/a.py", "src/b.py",
				chunk([]string{"class A", "def m():"}, false, " x", "", "-y", "+z"),
				chunk(nil, true, "+tail"))),
			want: "*** Begin Patch\n*** Update File: src/a.py\n*** Move to: src/b.py\n@@ class A\n@@ def m():\n x\n \n-y\n+z\n@@\n+tail\n*** End of File\n*** End Patch\n",
		},
		{
			name: "R11_anchor_with_leading_space_kept",
			p:    pt(upd("a", "", chunk([]string{"  indented"}, false, "+x"))),
			want: "*** Begin Patch\n*** Update File: a\n@@   indented\n+x\n*** End Patch\n",
		},
		{
			name: "R11_trailing_cr_doubled",
			p:    pt(add("a", "x\r\n"), upd("b", "", chunk([]string{"c\r"}, false, "-y\r", "+\r"))),
			want: "*** Begin Patch\n*** Add File: a\n+x\r\r\n*** Update File: b\n@@ c\r\r\n-y\r\r\n+\r\r\n*** End Patch\n",
		},
		{
			name: "R11_unknown_kind_skipped",
			p:    pt(patch.Hunk{Kind: 7, Path: "x"}, del("y")),
			want: "*** Begin Patch\n*** Delete File: y\n*** End Patch\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := patch.Format(tc.p)
			if got != tc.want {
				t.Fatalf("Format() =\n%q\nwant\n%q", got, tc.want)
			}
			if tc.p == nil || tc.p.Validate() != nil {
				return
			}
			back, err := patch.Parse(got)
			if err != nil || !patch.Equal(back, tc.p) {
				t.Errorf("Parse(Format(p)) = %+v, %v; want %+v", back, err, tc.p)
			}
		})
	}
}

// TestFormatCanonicalises checks that lenient input comes out in the one canonical form.
func TestFormatCanonicalises(t *testing.T) {
	const canonical = "*** Begin Patch\n*** Update File: a.txt\n@@ ctx\n-old\n+new\n*** End Patch\n"
	tests := []struct {
		name, text string
	}{
		{name: "R11_heredoc", text: "<<'EOF'\n" + canonical + "EOF\n"},
		{name: "R11_crlf", text: "*** Begin Patch\r\n*** Update File: a.txt\r\n@@ ctx\r\n-old\r\n+new\r\n*** End Patch\r\n"},
		{name: "E3_padded_markers_and_header", text: "  *** Begin Patch \n\t*** Update File:a.txt \n@@ctx\n-old\n+new\n *** End Patch\t"},
		{name: "E85_blank_lines", text: "\n*** Begin Patch\n\n*** Update File: a.txt\n\n@@ ctx\n-old\n+new\n*** End Patch\n\n"},
		{name: "R11_already_canonical", text: canonical},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := patch.Parse(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if got := patch.Format(p); got != canonical {
				t.Errorf("Format(Parse(text)) =\n%q\nwant\n%q", got, canonical)
			}
		})
	}
}
