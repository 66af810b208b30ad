// Command harnesskit is the command-line face of the harnesskit packages: one subcommand per
// package, JSON in and JSON out, so that scripts and other languages can use them and so that
// each package has a black-box contract.
//
// Usage:
//
//	harnesskit <command> [<verb>] [flags]
//	harnesskit help [<command>]
//
// Exit codes: 0 when the call succeeded, 1 when the tool refused the input (a patch that does
// not apply, a blocked path; the reason is on stdout as JSON where the command speaks JSON),
// 2 on a usage error or a host failure (a message on stderr).
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
