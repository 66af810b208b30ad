package main

import "github.com/harnesskit/harnesskit/examples/tools"

// wantToolCount is how many tools the server lists in this build: ast_grep_search and
// ast_grep_replace only where astsearch has a backend (cgo, or ast-grep on PATH).
func wantToolCount() int {
	if tools.AstGrepAvailable() {
		return 9
	}
	return 7
}
