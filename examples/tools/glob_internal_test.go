package tools

import "testing"

// TestGlobBackslash: on Windows a model writes paths, and so globs, with backslashes
// (src\**\*.go); there `\` is a path separator, never an escape. Elsewhere it stays
// doublestar's escape (src\*.go matches a file named "*.go" in src), since `\` may be part
// of a file name there.
func TestGlobBackslash(t *testing.T) {
	tests := []struct {
		name, pattern string
		windows       bool
		want          string
	}{
		{name: "windows_separators", pattern: `src\**\*.go`, windows: true, want: "src/**/*.go"},
		{name: "windows_mixed", pattern: `src/pkg\*.go`, windows: true, want: "src/pkg/*.go"},
		{name: "windows_dot_prefix", pattern: `.\src\*.go`, windows: true, want: "./src/*.go"},
		{name: "windows_forward_only", pattern: "src/*.go", windows: true, want: "src/*.go"},
		{name: "posix_escape_kept", pattern: `src\*.go`, windows: false, want: `src\*.go`},
		{name: "posix_plain", pattern: "src/**/*.go", windows: false, want: "src/**/*.go"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := globPattern(tc.pattern, tc.windows); got != tc.want {
				t.Fatalf("globPattern(%q, windows=%v) = %q, want %q", tc.pattern, tc.windows, got, tc.want)
			}
		})
	}
}
