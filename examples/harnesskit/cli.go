package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Exit codes of every subcommand.
const (
	exitOK      = 0 // the call succeeded
	exitRefused = 1 // the tool understood the call and refused it (a tool error)
	exitUsage   = 2 // bad usage, or the host failed (a host error)
)

// stdio is what a command reads and writes.
type stdio struct {
	in       io.Reader
	out, err io.Writer
	// reported holds the journals already reported on stderr (reportRecovered), so that a
	// refused journal, which every step of a command meets again, is reported once.
	reported map[string]bool
	// flagSets, when set (by tests), sees every flag set a verb builds, before it parses:
	// how a test learns which flags each verb defines.
	flagSets func(*flag.FlagSet)
}

// newFlagSet returns the flag set of a verb, named as usage errors name it.
func newFlagSet(std stdio, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	if std.flagSets != nil {
		std.flagSets(fs)
	}
	return fs
}

// A command is one subcommand of harnesskit: usually one package, with verbs below it.
type command struct {
	name    string // "patch"
	summary string // one line for the command list
	usage   string // full usage text, printed by "help <name>" and "<name> -h"
	// verbs are the command's verbs; run, when set, handles arguments that do not start with
	// one (webfetch URL). Either gets the arguments after its name and returns an exit code.
	verbs []verb
	run   func(ctx context.Context, args []string, std stdio) int
}

// exec runs c with the arguments after its name: the verb they start with, else run, else
// the usage error that names the verbs.
func (c command) exec(ctx context.Context, args []string, std stdio) int {
	if c.run == nil {
		return dispatchVerbs(ctx, c.name, c.usage, c.verbs, args, std)
	}
	if len(args) > 0 {
		if i := slices.IndexFunc(c.verbs, func(v verb) bool { return v.name == args[0] }); i >= 0 {
			return c.verbs[i].run(ctx, args[1:], std)
		}
	}
	return c.run(ctx, args, std)
}

// commands is the table of subcommands, in the order "help" lists them. Each package's
// subcommand lives in its own file (cmd_<package>.go) and adds one line here.
func commands() []command {
	return []command{
		patchCommand(),
		editCommand(),
		pathguardCommand(),
		loopguardCommand(),
		astsearchCommand(),
		webfetchCommand(),
		mcpCommand(),
		formatCommand(),
	}
}

// run is the whole program; main only wires it to the process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return dispatch(ctx, commands(), args, stdio{in: stdin, out: stdout, err: stderr, reported: map[string]bool{}})
}

// dispatch picks the command named by args[0] from cmds.
func dispatch(ctx context.Context, cmds []command, args []string, std stdio) int {
	if len(args) == 0 {
		fmt.Fprintln(std.err, "harnesskit: no command given; run `harnesskit help` for the list of commands")
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		return help(cmds, args[1:], std)
	}
	i := slices.IndexFunc(cmds, func(c command) bool { return c.name == name })
	if i < 0 {
		fmt.Fprintf(std.err, "harnesskit: unknown command %q (the commands are %s); run `harnesskit help` for more\n", name, commandNames(cmds))
		return exitUsage
	}
	return cmds[i].exec(ctx, args[1:], std)
}

// help prints the command list, or one command's usage, to stdout.
func help(cmds []command, args []string, std stdio) int {
	if len(args) == 0 {
		fmt.Fprint(std.out, mainUsage(cmds))
		return exitOK
	}
	i := slices.IndexFunc(cmds, func(c command) bool { return c.name == args[0] })
	if i < 0 {
		fmt.Fprintf(std.err, "harnesskit: no help for unknown command %q (the commands are %s)\n", args[0], commandNames(cmds))
		return exitUsage
	}
	fmt.Fprint(std.out, cmds[i].usage)
	return exitOK
}

func mainUsage(cmds []command) string {
	var b strings.Builder
	b.WriteString(`harnesskit: the tools and guards of an agent host, from the command line.
Each command's -h says what it reads on stdin (text or JSON) and what it prints.

Usage:
  harnesskit <command> [<verb>] [flags]
  harnesskit help [<command>]

Commands:
`)
	if len(cmds) == 0 {
		b.WriteString("  (none yet)\n")
	}
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %-10s %s\n", c.name, c.summary)
	}
	b.WriteString(`
Exit codes:
  0  the call succeeded
  1  the tool refused the input (the reason is on stdout)
  2  usage error or host failure (the message is on stderr)

Run "harnesskit help <command>" or "harnesskit <command> -h" for a command's verbs and flags.
`)
	return b.String()
}

// A verb is one action below a command, such as "apply" in "harnesskit patch apply".
type verb struct {
	name string
	run  func(ctx context.Context, args []string, std stdio) int
}

// dispatchVerbs runs the verb named by args[0]; "-h" or "help" print usage to stdout.
func dispatchVerbs(ctx context.Context, cmd string, usage string, verbs []verb, args []string, std stdio) int {
	if len(args) == 0 {
		usageError(std, cmd, "no verb given (the verbs are %s)", verbNames(verbs))
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(std.out, usage)
		return exitOK
	}
	i := slices.IndexFunc(verbs, func(v verb) bool { return v.name == args[0] })
	if i < 0 {
		usageError(std, cmd, "unknown verb %q (the verbs are %s)", args[0], verbNames(verbs))
		return exitUsage
	}
	return verbs[i].run(ctx, args[1:], std)
}

// parseFlags parses args with fs, which the caller has filled with its flags. It returns
// (exit code, false) when the caller must stop: 0 after -h (usage on stdout), 2 after a bad
// flag or a stray argument (the problem and the usage on stderr).
func parseFlags(fs *flag.FlagSet, usage string, args []string, std stdio) (int, bool) {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(std.out, usage)
			return exitOK, false
		}
		usageError(std, fs.Name(), "%v", err)
		return exitUsage, false
	}
	if fs.NArg() > 0 {
		usageError(std, fs.Name(), "unexpected argument %q", fs.Arg(0))
		return exitUsage, false
	}
	return exitOK, true
}

// usageError prints a usage mistake as one line on stderr, with the command whose -h
// explains the right usage: "harnesskit patch apply: unexpected argument "x"; run
// `harnesskit patch apply -h` for usage". The full help is not repeated.
func usageError(std stdio, cmd, format string, args ...any) {
	fmt.Fprintf(std.err, "harnesskit %s: %s; run `harnesskit %s -h` for usage\n", cmd, fmt.Sprintf(format, args...), cmd)
}

func commandNames(cmds []command) string {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

func verbNames(verbs []verb) string {
	names := make([]string, len(verbs))
	for i, v := range verbs {
		names[i] = v.name
	}
	return strings.Join(names, ", ")
}
