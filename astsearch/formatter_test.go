package astsearch

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

type fakeFormatter struct {
	name string
	fn   func([]byte) ([]byte, error)
}

func (f fakeFormatter) Format(_ context.Context, _ string, src []byte) ([]byte, string, error) {
	out, err := f.fn(src)
	return out, f.name, err
}

func TestWithFormatter(t *testing.T) {
	tests := []struct {
		name      string
		f         Formatter
		wantFile  string
		wantNote  string
		wantDiffs bool
	}{
		{name: "formatted_bytes_are_written", f: fakeFormatter{"upper", func(b []byte) ([]byte, error) { return bytes.ToUpper(b), nil }},
			wantFile: "LOGGER.INFO('UTIL');\n", wantDiffs: true},
		{name: "formatter_error_leaves_the_edit_as_written", f: fakeFormatter{"broken", func([]byte) ([]byte, error) { return nil, errors.New("syntax error") }},
			wantFile: "logger.info('util');\n", wantNote: "formatter failed"},
		{name: "no_formatter_applies", f: fakeFormatter{"", func(b []byte) ([]byte, error) { return b, nil }},
			wantFile: "logger.info('util');\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, mem := rewriteFixture(t, map[string]string{"u.js": srcUtil}, "console.log($A)", "logger.info($A)")
			applied, err := plan.Apply(context.Background(), mem.FS, mem.Root, WithFormatter(tc.f))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := mem.FS.ReadFile(filepath.Join(mem.Root, "u.js"))
			if string(got) != tc.wantFile {
				t.Errorf("file %q, want %q", got, tc.wantFile)
			}
			if len(applied.Formatted) != 1 {
				t.Fatalf("reports %+v", applied.Formatted)
			}
			rep := applied.Formatted[0]
			if !strings.HasPrefix(rep.Note, tc.wantNote) || (rep.Diff != "") != tc.wantDiffs {
				t.Errorf("report %+v", rep)
			}
		})
	}
}
