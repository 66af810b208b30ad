package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/harnesskit/harnesskit/examples/mcpserver"
	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/webfetch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const mcpUsage = `usage: harnesskit mcp --root DIR [--worktree DIR]... [--allow-private] [--format] [--http ADDR [--token TOKEN]] [--log-level LEVEL]

Serves the harnesskit tools (apply_patch, read, grep, glob, webfetch) to an MCP client.
Every call goes through one loop guard, and every path must lie inside --root or a
--worktree. webfetch refuses loopback, private and metadata addresses unless
--allow-private is given.

Without --http the server speaks MCP over stdin and stdout (the client starts it as a
subprocess); with --http it serves the Streamable HTTP transport at http://ADDR/ until
interrupted. The log goes to stderr only.

Flags:
  --root DIR          the workspace root (required)
  --worktree DIR      a further directory the tools may read and write (repeatable)
  --allow-private     let webfetch reach loopback and private addresses (local servers,
                      tests); link-local and metadata addresses stay refused. Never give
                      it to a server whose model reads untrusted pages
  --format            apply_patch formats each file it writes with the formatter the
                      project under --root declares (as "harnesskit format" detects it;
                      gofmt in process for Go) before the commit, and its result says
                      "formatted by X, N lines changed" with the diff (at most 40 lines).
                      A formatter that fails leaves the file as the patch made it.
  --http ADDR         serve Streamable HTTP on ADDR (host:port). Without a token ADDR must
                      be a loopback address (127.0.0.1:PORT, [::1]:PORT, localhost:PORT).
  --token TOKEN       require "Authorization: Bearer TOKEN" on every HTTP request (401
                      otherwise); allows a non-loopback ADDR. Default: the environment
                      variable HARNESSKIT_MCP_TOKEN.
  --log-level LEVEL   debug, info (default), warn or error

Exit codes: 0 when the client disconnects (stdio) or on interrupt (HTTP), 2 on bad usage,
an unusable root, a refused address or a transport failure (the reason on stderr).
`

func mcpCommand() command {
	return command{
		name:    "mcp",
		summary: "serve the tools to an MCP client over stdio or Streamable HTTP",
		usage:   mcpUsage,
		run:     mcpServe,
	}
}

func mcpServe(ctx context.Context, args []string, std stdio) int {
	const name = "mcp"
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	root := fs.String("root", "", "workspace root")
	var worktrees multiFlag
	fs.Var(&worktrees, "worktree", "further allowed directory")
	allowPrivate := fs.Bool("allow-private", false, "webfetch may reach private addresses")
	formatOn := fs.Bool("format", false, "apply_patch formats written files")
	httpAddr := fs.String("http", "", "serve Streamable HTTP on this address")
	token := fs.String("token", os.Getenv("HARNESSKIT_MCP_TOKEN"), "bearer token")
	level := fs.String("log-level", "info", "log level")
	if code, ok := parseFlags(fs, mcpUsage, args, std); !ok {
		return code
	}
	if *root == "" {
		fmt.Fprintf(std.err, "harnesskit %s: --root is required\n\n%s", name, mcpUsage)
		return exitUsage
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		fmt.Fprintf(std.err, "harnesskit %s: --log-level: %v\n", name, err)
		return exitUsage
	}
	if *httpAddr != "" {
		// Refuse a reachable address before anything else is set up.
		if err := mcpserver.ListenAddr(*httpAddr, *token); err != nil {
			fmt.Fprintf(std.err, "harnesskit %s: %v\n", name, err)
			return exitUsage
		}
	}
	log := slog.New(slog.NewTextHandler(std.err, &slog.HandlerOptions{Level: lvl}))
	opts := []tools.Option{tools.WithWorktrees(worktrees...)}
	if *allowPrivate {
		opts = append(opts, tools.WithWebFetch(webfetch.WithSSRFPolicy(webfetch.SSRFPolicy{AllowLoopback: true, AllowPrivate: true})))
	}
	if *formatOn {
		f, err := format.New(*root)
		if err != nil {
			fmt.Fprintf(std.err, "harnesskit %s: --format: %v\n", name, err)
			return exitUsage
		}
		opts = append(opts, tools.WithFormatter(f))
	}
	box, err := tools.New(*root, opts...)
	if err != nil {
		fmt.Fprintf(std.err, "harnesskit %s: %v\n", name, err)
		return exitUsage
	}
	defer box.Close()
	srv := mcpserver.New(box, &mcpserver.Options{Logger: log, Context: ctx})
	if *httpAddr != "" {
		err = mcpserver.ServeHTTP(ctx, srv, *httpAddr, *token, log, 5*time.Second, func(a net.Addr) {
			fmt.Fprintf(std.err, "harnesskit mcp: serving %s over Streamable HTTP at http://%s/\n", box.Root(), a)
		})
	} else {
		log.Info("serving MCP over stdio", "root", box.Root())
		err = srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(std.in), Writer: nopWriteCloser{std.out}})
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(std.err, "harnesskit %s: %v\n", name, err)
		return exitUsage
	}
	return exitOK
}

// nopWriteCloser keeps the transport from closing the process's stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
