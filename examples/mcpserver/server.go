package mcpserver

import (
	"context"
	"log/slog"
	"net/url"
	"path/filepath"
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
	sessions := &sessions{box: box, log: log, state: map[*mcp.ServerSession]*sessionState{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "harnesskit", Title: "harnesskit tools", Version: Version},
		&mcp.ServerOptions{
			Instructions: "File tools over the workspace " + box.Root() + ": read, grep and glob to look, apply_patch, edit or multi_edit to change files; webfetch reads a web page. Paths are relative to the workspace root or absolute inside it.",
			Logger:       log,
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
			InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
				sessions.get(req.Session)
			},
			RootsListChangedHandler: func(_ context.Context, req *mcp.RootsListChangedRequest) {
				sessions.rootsChanged(req.Session)
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
		inv := tools.Invocation{Session: sessions.id(req.Session), Args: req.Params.Arguments, Roots: sessions.roots(ctx, req.Session)}
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

// sessions keeps what the server knows of each MCP session: its loop-guard session, named
// "mcp-<n>" from a counter (stdio and in-memory sessions have no id of their own), and the
// client's roots when it offers them. When an MCP session ends, its loop-guard state is
// dropped.
type sessions struct {
	box   *tools.Toolbox
	log   *slog.Logger
	mu    sync.Mutex
	n     int
	state map[*mcp.ServerSession]*sessionState
}

type sessionState struct {
	id    string
	roots []string      // the client's roots as directories; nil: the server's root and worktrees
	ready chan struct{} // closed when the roots being read are known
	gen   int           // counts the reads of the roots
}

// get returns the state of ss, created on first sight (when the client offers roots, they
// are read then).
func (s *sessions) get(ss *mcp.ServerSession) *sessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.state[ss]; ok {
		return st
	}
	s.n++
	st := &sessionState{id: "mcp-" + strconv.Itoa(s.n)}
	s.state[ss] = st
	if p := ss.InitializeParams(); p != nil {
		var client string
		if p.ClientInfo != nil {
			client = p.ClientInfo.Name + " " + p.ClientInfo.Version
		}
		s.log.Info("client connected", "session", st.id, "client", client, "protocol", p.ProtocolVersion, "roots", offersRoots(ss))
	}
	if offersRoots(ss) {
		s.readRoots(ss, st)
	}
	go func() { // ends with the session
		ss.Wait()
		s.box.EndSession(st.id)
		s.mu.Lock()
		delete(s.state, ss)
		s.mu.Unlock()
	}()
	return st
}

func (s *sessions) id(ss *mcp.ServerSession) string {
	if ss == nil {
		return tools.DefaultSession
	}
	return s.get(ss).id
}

// offersRoots reports whether the client of ss declared the roots capability on a protocol
// version that lets the server ask for them: from 2026-07-28 on a server may not send
// roots/list (the feature is deprecated there), and such a session uses the server's root.
func offersRoots(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.RootsV2 != nil && p.ProtocolVersion < "2026-07-28"
}

// rootsChanged reads the client's roots again; calls wait for the new list.
func (s *sessions) rootsChanged(ss *mcp.ServerSession) {
	st := s.get(ss)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.readRoots(ss, st)
}

// readRoots asks the client for its roots, in a goroutine: a server may not send a request
// to the client while it serves one of the client's (protocol 2026-07-28 and later), so
// they are read when the session starts and when the client says they changed, and a
// tool call waits for the read in flight. A client that fails to list them (logged) gets
// the server's root. Called with s.mu held.
func (s *sessions) readRoots(ss *mcp.ServerSession, st *sessionState) {
	st.gen++
	gen, ready := st.gen, make(chan struct{})
	st.ready = ready
	go func() {
		defer close(ready)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var roots []string
		res, err := ss.ListRoots(ctx, nil)
		if err != nil {
			s.log.Warn("listing the client's roots failed; the server's root is used", "session", st.id, "error", err)
		} else {
			for _, r := range res.Roots {
				if dir, ok := rootDir(r.URI); ok {
					roots = append(roots, dir)
				} else {
					s.log.Warn("a client root that is not a local directory is left out", "session", st.id, "uri", r.URI)
				}
			}
			s.log.Info("client roots", "session", st.id, "roots", roots, "ceiling", s.box.Root())
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if st.gen == gen { // not superseded by a later read
			st.roots = roots
		}
	}()
}

// roots returns the client's roots for a call of ss, waiting for a read in flight; nil
// when the client offers none: the call then uses the server's root and worktrees.
func (s *sessions) roots(ctx context.Context, ss *mcp.ServerSession) []string {
	if ss == nil {
		return nil
	}
	st := s.get(ss)
	s.mu.Lock()
	ready := st.ready
	s.mu.Unlock()
	if ready != nil {
		select {
		case <-ready:
		case <-ctx.Done():
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return st.roots
}

// rootDir turns a file:// root URI into a local path.
func rootDir(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
		return "", false
	}
	p := u.Path
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' { // /C:/dir on Windows
		p = p[1:]
	}
	return filepath.FromSlash(p), true
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
