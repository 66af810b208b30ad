package patch

import "strings"

// An Invocation is an apply_patch call recognised by [ParseCommand]: the patch text and the
// directory a leading "cd <dir> &&" named ("" when there was none). The host passes Workdir
// to the applier's In method: it changes the base for relative hunk and move paths but never
// widens the allowed roots.
type Invocation struct {
	Patch   string
	Workdir string
}

// ParseCommand recognises the shell invocations of apply_patch that Codex's tool accepts, in
// this order:
//
//  1. ["apply_patch", patch] or ["applypatch", patch] (exactly two elements);
//  2. a shell running a script — ["bash"|"zsh"|"sh", "-c"|"-lc", script],
//     ["pwsh"|"powershell"(".exe"), ["-NoProfile",] "-Command", script] or
//     ["cmd"(".exe"), "/c", script], argv[0] compared by base name — whose script, ignoring
//     surrounding whitespace, is exactly an optional "cd <dir> && " (one word, bare or in
//     single or double quotes), then "apply_patch" or "applypatch", then "<<" and a delimiter
//     word (bare or quoted), a line break, the patch, and a line holding only the delimiter;
//  3. a lone argument, or a shell script of the forms above, that is itself a patch [Parse]
//     accepts → [ErrImplicitInvocation], whose text tells the model how to call it instead;
//  4. anything else → [ErrNotPatchCommand]: run it as an ordinary command.
//
// Anything more in the script — "cd a;", "cd a ||", "cd a |", a command before cd or
// apply_patch, two cd commands, cd with two arguments, apply_patch with arguments, text after
// the heredoc — makes it ErrNotPatchCommand. ParseCommand does not validate the patch text
// of forms 1 and 2; the applier does.
func ParseCommand(argv []string) (*Invocation, error) {
	if len(argv) == 2 && (argv[0] == "apply_patch" || argv[0] == "applypatch") {
		return &Invocation{Patch: argv[1]}, nil
	}
	if script, ok := shellScript(argv); ok {
		if inv, ok := heredocInvocation(script); ok {
			return inv, nil
		}
		if _, err := Parse(script); err == nil {
			return nil, ErrImplicitInvocation
		}
		return nil, ErrNotPatchCommand
	}
	if len(argv) == 1 {
		if _, err := Parse(argv[0]); err == nil {
			return nil, ErrImplicitInvocation
		}
	}
	return nil, ErrNotPatchCommand
}

// shellScript returns the script of a recognised shell argv form.
func shellScript(argv []string) (string, bool) {
	if len(argv) < 3 {
		return "", false
	}
	name := argv[0]
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	lower := strings.TrimSuffix(strings.ToLower(name), ".exe")
	switch {
	case name == "bash" || name == "zsh" || name == "sh":
		if len(argv) == 3 && (argv[1] == "-c" || argv[1] == "-lc") {
			return argv[2], true
		}
	case lower == "pwsh" || lower == "powershell":
		args := argv[1:]
		if strings.EqualFold(args[0], "-NoProfile") {
			args = args[1:]
		}
		if len(args) == 2 && strings.EqualFold(args[0], "-Command") {
			return args[1], true
		}
	case lower == "cmd":
		if len(argv) == 3 && strings.EqualFold(argv[1], "/c") {
			return argv[2], true
		}
	}
	return "", false
}

// heredocInvocation matches `[cd DIR && ]apply_patch <<DELIM\n…\nDELIM` exactly.
func heredocInvocation(script string) (*Invocation, bool) {
	s := strings.TrimSpace(script)
	first, rest, ok := strings.Cut(s, "\n")
	if !ok {
		return nil, false
	}
	cmd := strings.TrimSuffix(first, "\r")
	var dir string
	if after, ok := strings.CutPrefix(cmd, "cd"); ok && after != "" && (after[0] == ' ' || after[0] == '\t') {
		var word string
		word, after, ok = shellWord(strings.TrimLeft(after, " \t"))
		if !ok {
			return nil, false
		}
		after = strings.TrimLeft(after, " \t")
		after, ok = strings.CutPrefix(after, "&&")
		if !ok {
			return nil, false
		}
		dir, cmd = word, strings.TrimLeft(after, " \t")
	}
	var found bool
	for _, name := range [...]string{"apply_patch", "applypatch"} {
		if after, ok := strings.CutPrefix(cmd, name); ok {
			cmd, found = strings.TrimLeft(after, " \t"), true
			break
		}
	}
	if !found {
		return nil, false
	}
	cmd, ok = strings.CutPrefix(cmd, "<<")
	if !ok {
		return nil, false
	}
	delim, ok := heredocWord(strings.TrimRight(strings.TrimLeft(cmd, " \t"), " \t"))
	if !ok {
		return nil, false
	}
	// The body runs to the first line that is exactly the delimiter, which must be the last.
	var body []string
	lines := strings.Split(rest, "\n")
	for i, l := range lines {
		if strings.TrimSuffix(l, "\r") == delim {
			if i != len(lines)-1 {
				return nil, false
			}
			patchText := strings.Join(body, "\n")
			if len(body) > 0 {
				patchText += "\n"
			}
			return &Invocation{Patch: patchText, Workdir: dir}, true
		}
		body = append(body, l)
	}
	return nil, false
}

// shellWord reads one shell word at the start of s: bare (no whitespace, quotes or shell
// operators) or wrapped in single or double quotes (no expansions inside double quotes). It
// returns the word without quotes and the rest of s.
func shellWord(s string) (word, rest string, ok bool) {
	if s == "" {
		return "", "", false
	}
	if q := s[0]; q == '\'' || q == '"' {
		end := strings.IndexByte(s[1:], q)
		if end < 0 {
			return "", "", false
		}
		word = s[1 : 1+end]
		if word == "" || (q == '"' && strings.ContainsAny(word, "$`\\")) {
			return "", "", false
		}
		return word, s[2+end:], true
	}
	end := strings.IndexAny(s, " \t;&|<>()'\"`$\\\n")
	if end == 0 {
		return "", "", false
	}
	if end < 0 {
		end = len(s)
	}
	return s[:end], s[end:], true
}
