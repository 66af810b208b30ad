package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/harnesskit/harnesskit/examples/tools"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Version is the server version reported to clients.
const Version = "0.1.0"

// Options configure New. The zero value is usable.
type Options struct {
	// Logger receives the server's log (never stdout). Nil discards it.
	Logger *slog.Logger
	// Context, when not nil, bounds every tool call: once it is done, calls in flight
	// are cancelled. Pass the context whose end shuts the server down (the one given to
	// ServeHTTP or Run): the SDK waits for calls in flight when a session closes, so
	// without it a shutdown waits for the slowest call to finish.
	Context context.Context
}

// New returns an MCP server exposing every tool of box. The server shares box (and its
// loop guard) between all sessions; box must outlive it.
func New(box *tools.Toolbox, opts *Options) *mcp.Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sessions := &sessions{box: box, ids: map[*mcp.ServerSession]string{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "harnesskit", Title: "harnesskit tools", Version: Version},
		&mcp.ServerOptions{
			Instructions: "File tools over the workspace " + box.Root() + ": read, grep and glob to look, apply_patch to edit; webfetch reads a web page. Paths are relative to the workspace root or absolute inside it.",
			Logger:       log,
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
			InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
				sessions.id(req.Session)
			},
		})
	for _, t := range box.Tools() {
		srv.AddTool(&mcp.Tool{
			Name:        t.Name,
			Description: t.Description,
			InputSchema: t.InputSchema,
			Annotations: annotations(t.Annotations),
		}, handler(t, sessions, log, o.Context))
	}
	return srv
}

func annotations(a tools.Annotations) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
		ReadOnlyHint:    a.ReadOnly,
		DestructiveHint: &a.Destructive,
		IdempotentHint:  a.Idempotent,
		OpenWorldHint:   &a.OpenWorld,
	}
}

// handler runs one tool call and sorts its outcome into the two channels.
func handler(t *tools.Tool, sessions *sessions, log *slog.Logger, bound context.Context) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if bound != nil {
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(bound, cancel)()
		}
		inv := tools.Invocation{Session: sessions.id(req.Session), Args: req.Params.Arguments}
		if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
			ss := req.Session
			inv.Progress = func(done, total float64, msg string) {
				// A lost progress notification is not worth failing the call for.
				_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: done, Total: total, Message: msg})
			}
		}
		start := time.Now()
		out, err := t.Invoke(ctx, inv)
		switch {
		case err == nil:
			log.Debug("tool call", "tool", t.Name, "session", inv.Session, "elapsed", time.Since(start))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}}, nil
		case tools.IsToolError(err):
			log.Info("tool error", "tool", t.Name, "session", inv.Session, "error", firstLine(err.Error()))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}, IsError: true}, nil
		case ctx.Err() != nil:
			log.Info("tool call cancelled", "tool", t.Name, "session", inv.Session)
			return nil, ctx.Err()
		default:
			log.Error("tool host failure", "tool", t.Name, "session", inv.Session, "error", err)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
	}
}

// sessions names the loop-guard session of each MCP session: "mcp-<n>" from a counter,
// since stdio and in-memory sessions have no id of their own. When an MCP session ends,
// its loop-guard state is dropped.
type sessions struct {
	box *tools.Toolbox
	mu  sync.Mutex
	n   int
	ids map[*mcp.ServerSession]string
}

func (s *sessions) id(ss *mcp.ServerSession) string {
	if ss == nil {
		return tools.DefaultSession
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.ids[ss]; ok {
		return id
	}
	s.n++
	id := "mcp-" + strconv.Itoa(s.n)
	s.ids[ss] = id
	go func() { // ends with the session
		ss.Wait()
		s.box.EndSession(id)
		s.mu.Lock()
		delete(s.ids, ss)
		s.mu.Unlock()
	}()
	return id
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// ErrNotLoopback is returned by ListenAddr for an address that other machines can reach
// when no token is set.
var ErrNotLoopback = errors.New("mcpserver: refusing to serve HTTP on a non-loopback address without a token")

// ListenAddr checks an HTTP listen address: without a token it must be a loopback address
// (127.0.0.0/8, ::1 or localhost); an empty host (all interfaces) or any other name
// counts as not loopback. With a token any address is allowed.
func ListenAddr(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("mcpserver: listen address %q: %w (want host:port, e.g. 127.0.0.1:8765)", addr, err)
	}
	if token != "" || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("%w: %q; listen on 127.0.0.1:PORT, or set a token so that every request must carry it", ErrNotLoopback, addr)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Handler serves srv over Streamable HTTP. With a non-empty token, every request must
// carry "Authorization: Bearer <token>"; others get 401.
func Handler(srv *mcp.Server, token string, log *slog.Logger) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Logger: log})
	if token == "" {
		return h
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="harnesskit"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// ServeHTTP listens on addr (checked with ListenAddr) and serves srv until ctx is done,
// then shuts the listener down, waiting up to grace for calls in flight. Build srv with
// Options.Context set to ctx (or a context ending with it) so that those calls are
// cancelled rather than waited for. ready, when not
// nil, is called with the bound address once listening (useful with port 0).
func ServeHTTP(ctx context.Context, srv *mcp.Server, addr, token string, log *slog.Logger, grace time.Duration, ready func(net.Addr)) error {
	if err := ListenAddr(addr, token); err != nil {
		return err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcpserver: %w", err)
	}
	hs := &http.Server{Handler: Handler(srv, token, log), ReadHeaderTimeout: 10 * time.Second}
	if ready != nil {
		ready(ln.Addr())
	}
	log.Info("serving MCP over HTTP", "addr", ln.Addr().String(), "token", token != "")
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("mcpserver: %w", err)
	case <-ctx.Done():
	}
	// Close the sessions still open so that their streams end and Shutdown need not wait.
	var open []*mcp.ServerSession
	for ss := range srv.Sessions() {
		open = append(open, ss)
	}
	log.Info("shutting down", "open sessions", len(open))
	for _, ss := range open {
		ss.Close()
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err = hs.Shutdown(sctx)
	hs.Close() // streams still open after the grace period
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
