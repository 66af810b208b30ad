// Package mcpserver serves the harnesskit tools (examples/tools) over the Model Context
// Protocol, on the official Go SDK (github.com/modelcontextprotocol/go-sdk): over stdio for
// a client that starts the server as a subprocess, or over Streamable HTTP.
//
// Life cycle:
//
//	tools.New(root, …) → New(toolbox, opts) → Server.Run(ctx, transport) | Handler(srv, httpOpts) | ServeHTTP
//
// Each tool is registered with its description, its input schema and honest annotations
// (read, grep and glob read-only; webfetch read-only and open-world; apply_patch,
// edit and multi_edit destructive). A call runs Tool.Invoke with
// the MCP session as the loop-guard session, so repeats are counted per client. A tool
// error (bad arguments, a refused path, a patch that does not apply, a loop refusal)
// becomes a result with isError set and the message as text, which the model reads and
// acts on; a host fault (the call was cancelled, an I/O failure) becomes a JSON-RPC error.
// Long calls (grep, glob, webfetch) send progress notifications when the client asked for
// them with a progress token, and stop when the client cancels. The SDK waits for calls in
// flight when a session closes; set Options.Context to the context that shuts the server
// down so that those calls are cancelled instead.
//
// The server logs to the slog.Logger of Options (stderr in the harnesskit CLI), never to
// stdout, which is the protocol's when serving stdio.
//
// # Roots
//
// The toolbox's root and worktrees are the ceiling. When a client declares the roots
// capability (on a protocol version before 2026-07-28, where a server may still ask), the
// server reads its roots when the session starts and again whenever the client says they
// changed, and each call of that session touches only what lies in both (the client's
// first root is the one relative paths resolve against; see tools.Invocation.Roots). A
// client root outside the ceiling is left out; when none is left the call fails as a host
// error saying so. Clients that offer no roots work in the toolbox's root.
//
// # HTTP
//
// Handler serves Streamable HTTP with the checks of HTTPOptions: a bearer token; the Origin
// header, which when present must be one of AllowedOrigins (403 otherwise, so a web page
// cannot drive the tools); at most MaxSessions sessions (64), idle ones closed after
// IdleTimeout (30 minutes, on an injectable clock) and the next initialize refused with
// 503 when the table is still full. Every refused request is logged with its status and
// reason. ServeHTTP listens, expires idle sessions once a minute and shuts down cleanly.
//
// # Security Considerations
//
// The tools stay inside the workspace root and worktrees (see examples/tools). Over HTTP
// anyone who can reach the port can call them, so ListenAddr refuses an address that is
// not loopback unless a bearer token is set, and Handler then answers 401 to every
// request without "Authorization: Bearer <token>" (compared in constant time). A browser
// page can reach a loopback port too: requests carrying an Origin not explicitly allowed
// get 403, and the SDK's DNS-rebinding protection (a localhost listener refuses foreign
// Host headers) stays on. The session table is bounded, so a flood of initialize requests
// costs at most MaxSessions sessions.
// The token is a shared secret, not a user identity; use TLS in front of a non-loopback
// listener.
package mcpserver
