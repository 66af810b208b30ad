// Package mcpserver serves the harnesskit tools (examples/tools) over the Model Context
// Protocol, on the official Go SDK (github.com/modelcontextprotocol/go-sdk): over stdio for
// a client that starts the server as a subprocess, or over Streamable HTTP.
//
// Life cycle:
//
//	tools.New(root, …) → New(toolbox, opts) → Server.Run(ctx, transport) | Handler (HTTP)
//
// Each tool is registered with its description, its input schema and honest annotations
// (read, grep and glob read-only; webfetch read-only and open-world; apply_patch
// destructive). A call runs Tool.Invoke with
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
// # Security Considerations
//
// The tools stay inside the workspace root and worktrees (see examples/tools). Over HTTP
// anyone who can reach the port can call them, so ListenAddr refuses an address that is
// not loopback unless a bearer token is set, and Handler then answers 401 to every
// request without "Authorization: Bearer <token>" (compared in constant time). The SDK's
// DNS-rebinding protection (a localhost listener refuses foreign Host headers) stays on.
// The token is a shared secret, not a user identity; use TLS in front of a non-loopback
// listener.
package mcpserver
