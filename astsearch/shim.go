package astsearch

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// maxShimBytes bounds how much of a batch file is read to find the program it starts.
const maxShimBytes = 64 << 10

// shimTarget finds, in a Windows batch file written by npm (cmd-shim), the program it
// starts: the last quoted path that begins with the batch file's own directory (%dp0% or
// %~dp0). npm writes `"%dp0%\node_modules\...\ast-grep.exe" %*` for a native binary, and
// `"%_prog%" "%dp0%\node_modules\...\launcher.js" %*` for a script run by node.
var shimTarget = regexp.MustCompile(`"%~?dp0%?\\?([^"%]+)"`)

// resolveProgram returns the program and the arguments to put before ast-grep's own for
// the executable exe found on the system. On Windows a batch file (.cmd, .bat, as npm
// installs ast-grep) runs under cmd.exe, which reads its command line again with its own
// rules: no quoting makes a pattern such as `x"&echo injected>M&rem ` or a file name with
// `&` safe there (Go passes the arguments through as they are), so a batch file is never
// run. The program it starts is run directly instead: its .exe, or node.exe with its
// script (node and ast-grep read their arguments with the C library's rules, which Go's
// quoting follows). A batch file whose program cannot be found this way is refused with
// an error wrapping ErrUnavailable that says to point the backend at ast-grep.exe.
func resolveProgram(exe, goos string) (string, []string, error) {
	if goos != "windows" || !isBatch(exe) {
		return exe, nil, nil
	}
	refuse := func(why string) (string, []string, error) {
		return "", nil, fmt.Errorf("%w: the ast-grep executable %s is a batch file, which Windows runs through cmd.exe, where a pattern or a file name cannot be passed safely; %s: give the path of ast-grep.exe itself (in npm's node_modules\\@ast-grep\\cli-win32-*\\) with $HARNESSKIT_AST_GREP or CLI", ErrUnavailable, exe, why)
	}
	f, err := os.Open(exe)
	if err != nil {
		return refuse("it cannot be read (" + err.Error() + ")")
	}
	text, err := io.ReadAll(io.LimitReader(f, maxShimBytes))
	f.Close()
	if err != nil {
		return refuse("it cannot be read (" + err.Error() + ")")
	}
	found := shimTarget.FindAllSubmatch(text, -1)
	if len(found) == 0 {
		return refuse("the program it starts was not found in it")
	}
	dir := filepath.Dir(exe)
	local := func(rel string) string {
		return filepath.Join(dir, filepath.FromSlash(strings.ReplaceAll(rel, `\`, "/")))
	}
	target := local(string(found[len(found)-1][1]))
	if !hasExt(target, ".exe") && isFile(target+".exe") {
		target += ".exe"
	}
	if hasExt(target, ".exe") {
		if !isFile(target) {
			return refuse("the program it starts, " + target + ", does not exist")
		}
		return target, nil, nil
	}
	if isBatch(target) || !isFile(target) {
		return refuse("the program it starts, " + target + ", is not an executable or a script")
	}
	// A script: run node.exe, next to the batch file as npm looks for it, else on PATH.
	node := local("node.exe")
	if !isFile(node) {
		p, err := lookPathIn("node.exe", os.Getenv("PATH"))
		if err != nil {
			return refuse("it runs the script " + target + " with node, and node.exe was not found")
		}
		node = p
	}
	return node, []string{target}, nil
}

func isBatch(p string) bool { return hasExt(p, ".cmd") || hasExt(p, ".bat") }

func hasExt(p, ext string) bool { return strings.EqualFold(filepath.Ext(p), ext) }

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// lookPathIn finds name in the directories of a PATH value (the OS's list separator), as
// a regular file; exec.LookPath would also accept node.cmd through PATHEXT.
func lookPathIn(name, pathEnv string) (string, error) {
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			continue
		}
		if p := filepath.Join(d, name); isFile(p) {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}
