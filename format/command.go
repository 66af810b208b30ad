package format

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// hostOS is what turning a formatter's command into a process needs from the system. The
// zero value is the running system; tests set windows to check the batch-file rules on any
// system.
type hostOS struct {
	windows  bool
	readFile func(string) ([]byte, error)
	exists   func(string) bool
	lookPath func(string) (string, error)
	getenv   func(string) string
}

func (h *hostOS) get() hostOS {
	if h == nil {
		return hostOS{
			windows:  runtime.GOOS == "windows",
			readFile: os.ReadFile,
			exists:   func(p string) bool { fi, err := os.Stat(p); return err == nil && !fi.IsDir() },
			lookPath: exec.LookPath,
			getenv:   os.Getenv,
		}
	}
	return *h
}

// command returns the argv and extra environment that run argv safely. Everywhere but on
// Windows that is argv itself. On Windows a batch file (.cmd, .bat) runs under cmd.exe, which
// reads its command line with its own rules (& | < > ^ % ! and quotes): a file name such as
// x&ver&echo.ts would run ver. Go does not quote for cmd.exe, so a batch file is never given
// our arguments: an npm shim (the .cmd npm writes into node_modules/.bin) is replaced by
// the program it starts (node and the package's script, or the executable it names), and
// any other batch file runs only when every argument is made of characters cmd.exe reads
// literally; otherwise command refuses with ErrNotRunnable.
func command(h hostOS, argv []string) ([]string, []string, error) {
	if !h.windows || len(argv) == 0 {
		return argv, nil, nil
	}
	prog, err := h.lookPath(argv[0])
	if err != nil {
		return argv, nil, nil // the start fails and says so
	}
	if ext := strings.ToLower(filepath.Ext(prog)); ext != ".cmd" && ext != ".bat" {
		return argv, nil, nil
	}
	if shim, env, ok := npmShim(h, prog); ok {
		return append(shim, argv[1:]...), env, nil
	}
	for _, a := range argv[1:] {
		if !cmdLiteral(a) {
			return nil, nil, fmt.Errorf("%s is a batch file, which Windows runs under cmd.exe, and the argument %q holds characters cmd.exe would interpret (it could run commands); install the formatter as a program (.exe), or rename the file", prog, a)
		}
	}
	return append([]string{prog}, argv[1:]...), nil, nil
}

// cmdLiteral reports whether cmd.exe reads s literally once Go has quoted it: letters,
// digits, spaces and a few punctuation marks, nothing that cmd.exe expands, escapes, pipes or
// quotes.
func cmdLiteral(s string) bool {
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune(` _-.,:\/=+@#~[]{}'`, r):
		default:
			return false
		}
	}
	return true
}

// npmShim reads the batch file npm writes for a package's executable (cmd-shim) and returns
// the program it starts, the arguments before the caller's, and the variables it sets. It
// understands the shapes cmd-shim writes:
//
//	… & "%_prog%" <flags> "%dp0%\<script>" %*      (an interpreter, node by default)
//	node  "%~dp0\<script>" %*                       (older versions)
//	"%dp0%\<program>.exe"   %*                      (an executable)
//
// where _prog is "%dp0%\<interpreter>.exe" when that file exists next to the shim, else
// "<interpreter>" found on PATH, and "@SET NAME=value" lines set variables. Anything else is
// not a shim it knows (ok false).
func npmShim(h hostOS, shimPath string) (argv, env []string, ok bool) {
	data, err := h.readFile(shimPath)
	if err != nil {
		return nil, nil, false
	}
	dir := filepath.Dir(shimPath)
	local := func(tok string) (string, bool) { // "%dp0%\x" → dir\x
		for _, p := range []string{`%dp0%\`, `%~dp0\`, `%dp0%`, `%~dp0`} {
			if rest, ok := strings.CutPrefix(tok, p); ok && !strings.ContainsAny(rest, `%!"`) {
				return filepath.Join(dir, strings.ReplaceAll(rest, `\`, string(filepath.Separator))), true
			}
		}
		return "", false
	}
	var run string
	var progLocal, progPath string
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasSuffix(line, "%*"):
			run = strings.TrimSpace(strings.TrimSuffix(line, "%*"))
		case strings.HasPrefix(line, `SET "_prog=`) && strings.HasSuffix(line, `"`):
			v := strings.TrimSuffix(strings.TrimPrefix(line, `SET "_prog=`), `"`)
			if p, ok := local(v); ok {
				progLocal = p
			} else {
				progPath = v
			}
		case strings.HasPrefix(strings.ToUpper(line), "@SET PATHEXT="):
			// Only how cmd.exe finds programs; not passed on.
		case strings.HasPrefix(strings.ToUpper(line), "@SET "):
			kv := line[len("@SET "):]
			k, v, found := strings.Cut(kv, "=")
			if !found || k == "" || strings.ContainsAny(k, `%!"`) {
				return nil, nil, false
			}
			env = append(env, k+"="+expandCmdVars(h, v))
		}
	}
	if _, after, found := strings.Cut(run, "title %COMSPEC% & "); found {
		run = after
	}
	toks, ok := cmdFields(run)
	if !ok || len(toks) == 0 {
		return nil, nil, false
	}
	target, ok := local(toks[len(toks)-1])
	if !ok {
		return nil, nil, false
	}
	if len(toks) == 1 { // the executable itself
		if ext := strings.ToLower(filepath.Ext(target)); ext == ".cmd" || ext == ".bat" {
			return nil, nil, false
		}
		return []string{target}, env, true
	}
	switch first := toks[0]; {
	case first == "%_prog%":
	case strings.ContainsAny(first, `%!\/:`):
		return nil, nil, false
	default: // an older shim: `node "%~dp0\…" %*`, after a branch for node.exe next to it
		progLocal, progPath = filepath.Join(dir, first+".exe"), first
	}
	var prog string
	switch {
	case progLocal != "" && h.exists(progLocal):
		prog = progLocal
	case progPath != "" && !strings.ContainsAny(progPath, `%!`):
		p, err := h.lookPath(progPath)
		if err != nil {
			return nil, nil, false
		}
		prog = p
	default:
		return nil, nil, false
	}
	if ext := strings.ToLower(filepath.Ext(prog)); ext == ".cmd" || ext == ".bat" {
		return nil, nil, false
	}
	argv = []string{prog}
	for _, f := range toks[1 : len(toks)-1] {
		if strings.ContainsAny(f, `%!`) {
			return nil, nil, false
		}
		argv = append(argv, f)
	}
	return append(argv, target), env, true
}

// cmdFields splits a command line into its words, a double-quoted word being one word
// without its quotes. ok is false for an unbalanced quote or a word with a cmd.exe operator.
func cmdFields(s string) (out []string, ok bool) {
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '"' {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				return nil, false
			}
			out = append(out, s[1:1+end])
			s = s[2+end:]
			continue
		}
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			end = len(s)
		}
		w := s[:end]
		if strings.ContainsAny(w, `&|<>^"()`) {
			return nil, false
		}
		out = append(out, w)
		s = s[end:]
	}
	return out, true
}

// expandCmdVars replaces %NAME% in s with the variable's value, as cmd.exe does for an
// @SET line of a shim.
func expandCmdVars(h hostOS, s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '%')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '%')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(h.getenv(s[i+1 : i+1+j]))
		s = s[i+2+j:]
	}
	b.WriteString(s)
	return b.String()
}
