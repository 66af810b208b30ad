package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/harnesskit/harnesskit/astsearch"
	"github.com/harnesskit/harnesskit/examples/mcpserver"
	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/harnesskit/harnesskit/format"
	"github.com/harnesskit/harnesskit/webfetch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const mcpUsage = `usage: harnesskit mcp --root DIR [--worktree DIR]... [--allow-private] [--format] [--http ADDR [--token TOKEN] [--allow-origin ORIGIN]... [--max-sessions N] [--session-idle DURATION]] [--tree-cache-bytes N] [--log-level LEVEL]

Serves the harnesskit tools to an MCP client: apply_patch, edit, multi_edit, read, grep, glob
and webfetch,
and ast_grep_search and ast_grep_replace when an astsearch backend exists (a cgo build,
or the ast-grep executable: $HARNESSKIT_AST_GREP, else ast-grep on PATH). Every call goes
through one loop guard, and every path must lie inside --root or a --worktree; when the
client offers its roots (MCP roots), a call may touch only what lies in them too.
webfetch refuses loopback, private and metadata addresses unless --allow-private is
given. Arguments a tool does not know are ignored (hosts add their own).

Without --http the server speaks MCP over stdin and stdout (the client starts it as a
subprocess); with --http it serves the Streamable HTTP transport at http://ADDR/ until
interrupted. The log goes to stderr only.

Flags:
  --root DIR               the workspace root (required), resolved again on every call
  --worktree DIR           a further directory the tools may read and write (repeatable)
  --allow-private          let webfetch reach loopback and private addresses: see below
  --format                 apply_patch, edit and multi_edit format each file they write: see below
  --http ADDR              serve Streamable HTTP on ADDR (host:port); loopback only without a token
  --token TOKEN            require "Authorization: Bearer TOKEN" on every HTTP request: see below
  --allow-origin ORIGIN    accept HTTP requests whose Origin header is ORIGIN (repeatable): see below
  --max-sessions N         HTTP sessions open at once (default 64): see below
  --session-idle DURATION  close an HTTP session idle this long (default 30m)
  --tree-cache-bytes N     syntax trees the ast_grep tools keep between calls: see below
  --log-level LEVEL        debug, info (default), warn or error (refused HTTP requests: warn)

--root is resolved again on every call, so a directory replaced there while the server runs
is seen.

--allow-private: link-local and metadata addresses stay refused. Never give it to a server
whose model reads untrusted pages.

--format: apply_patch (and edit, multi_edit) format each file they write with the formatter
the project under --root declares (as "harnesskit format" detects it; gofmt in process for
Go) before the commit, and the result says "formatted by X, N lines changed" with the diff
(at most 40 lines). A formatter that fails leaves the file as the patch made it.

--http ADDR: without a token ADDR must be a loopback address (127.0.0.1:PORT, [::1]:PORT,
localhost:PORT). --token TOKEN answers other requests with 401 and allows a non-loopback
ADDR; its default is the environment variable HARNESSKIT_MCP_TOKEN (the server says so at
start). --allow-origin ORIGIN, e.g. http://localhost:6274 for a client in that web page:
requests with any other Origin get 403; clients that are not web pages send none.
--max-sessions N: when full, idle sessions are closed first, else the new session gets 503.
--session-idle: the client then starts a new session.
--tree-cache-bytes N: ast_grep_search and ast_grep_replace keep up to N bytes of syntax trees
between calls, so a search that repeats parses only the files changed since (default
536870912, 512 MiB; 0 turns the cache off).

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
	fs := newFlagSet(std, name)
	root := fs.String("root", "", "workspace root")
	var worktrees multiFlag
	fs.Var(&worktrees, "worktree", "further allowed directory")
	allowPrivate := fs.Bool("allow-private", false, "webfetch may reach private addresses")
	formatOn := fs.Bool("format", false, "apply_patch formats written files")
	httpAddr := fs.String("http", "", "serve Streamable HTTP on this address")
	token := fs.String("token", "", "bearer token")
	var origins multiFlag
	fs.Var(&origins, "allow-origin", "accepted Origin header value")
	maxSessions := fs.Int("max-sessions", mcpserver.DefaultMaxSessions, "HTTP sessions open at once")
	idle := fs.Duration("session-idle", mcpserver.DefaultIdleTimeout, "close idle HTTP sessions after this long")
	treeCache := fs.Int64("tree-cache-bytes", astsearch.DefaultTreeCacheBytes, "bytes of syntax trees kept between searches")
	level := fs.String("log-level", "info", "log level")
	if code, ok := parseFlags(fs, mcpUsage, args, std); !ok {
		return code
	}
	if *root == "" {
		usageError(std, name, "--root DIR is required: the workspace the tools may read and write")
		return exitUsage
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		fmt.Fprintf(std.err, "harnesskit %s: --log-level: %v\n", name, err)
		return exitUsage
	}
	tokenFromEnv := false
	if *token == "" {
		if v := os.Getenv("HARNESSKIT_MCP_TOKEN"); v != "" {
			*token, tokenFromEnv = v, true
		}
	}
	if *maxSessions < 1 || *idle <= 0 {
		usageError(std, name, "--max-sessions must be at least 1 and --session-idle positive")
		return exitUsage
	}
	if *httpAddr != "" {
		// Refuse a reachable address before anything else is set up.
		if err := mcpserver.ListenAddr(*httpAddr, *token); errors.Is(err, mcpserver.ErrNotLoopback) {
			fmt.Fprintf(std.err, "harnesskit %s: refusing to serve HTTP on %s, a non-loopback address, without a token: anyone who can reach that address could read and change the workspace. Listen on 127.0.0.1:PORT, or require a token with --token TOKEN (or the environment variable HARNESSKIT_MCP_TOKEN)\n", name, *httpAddr)
			return exitUsage
		} else if err != nil {
			fmt.Fprintf(std.err, "harnesskit %s: %v\n", name, err)
			return exitUsage
		}
	}
	log := slog.New(slog.NewTextHandler(std.err, &slog.HandlerOptions{Level: lvl}))
	opts := []tools.Option{tools.WithWorktrees(worktrees...), tools.WithTreeCache(*treeCache)}
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
		if tokenFromEnv {
			fmt.Fprintf(std.err, "harnesskit %s: every request must carry the bearer token read from the environment variable HARNESSKIT_MCP_TOKEN\n", name)
		}
		opts := &mcpserver.HTTPOptions{Token: *token, AllowedOrigins: origins, MaxSessions: *maxSessions, IdleTimeout: *idle, Logger: log}
		err = mcpserver.ServeHTTP(ctx, srv, *httpAddr, opts, 5*time.Second, func(a net.Addr) {
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
