package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of HTTPOptions.
const (
	DefaultMaxSessions = 64               // HTTP sessions open at once
	DefaultIdleTimeout = 30 * time.Minute // a session without a request for this long is closed
)

// HTTPOptions configure Handler and ServeHTTP. The zero value is usable: no token, no
// allowed origins, DefaultMaxSessions, DefaultIdleTimeout, the system clock, no log.
type HTTPOptions struct {
	// Token, when not empty, must come with every request as "Authorization: Bearer
	// <Token>" (compared in constant time); other requests get 401. ServeHTTP refuses a
	// non-loopback address without one.
	Token string
	// AllowedOrigins are the Origin header values accepted, besides none at all, such as
	// "http://localhost:6274" for a browser-based client on that page. They are compared
	// as scheme://host[:port], without regard to case. A request whose Origin is anything
	// else gets 403: browsers send one with every cross-site request, so a web page the
	// user visits cannot drive the tools. Non-browser clients send none.
	AllowedOrigins []string
	// MaxSessions bounds the sessions open at once (default DefaultMaxSessions). When the
	// table is full, idle sessions are expired first; if none is, the initialize request
	// gets 503 with Retry-After. Negative means no bound.
	MaxSessions int
	// IdleTimeout closes a session that has had no request (and no stream open) for this
	// long (default DefaultIdleTimeout); its id then answers 404 and the client starts a new
	// session. Negative means never.
	IdleTimeout time.Duration
	// Logger receives one line per refused request (401, 403, 503 and the SDK's own 4xx),
	// and the sessions closed as idle. Nil discards.
	Logger *slog.Logger
	// Now is the clock idle sessions are measured on (default time.Now).
	Now func() time.Time
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

// HTTPHandler serves an MCP server over Streamable HTTP with the checks of HTTPOptions:
// the bearer token, the Origin header, and a table of sessions capped in number and
// expired when idle. Build it with Handler. It starts no goroutines: idle sessions are
// expired when a client asks for a new session, and by Expire (ServeHTTP calls it once a
// minute).
type HTTPHandler struct {
	srv     *mcp.Server
	sdk     http.Handler
	token   []byte // "Bearer <token>", nil when none
	origins map[string]bool
	max     int
	idle    time.Duration
	log     *slog.Logger
	now     func() time.Time

	mu       sync.Mutex
	sessions map[string]*httpSession // by Mcp-Session-Id
	opening  int                     // initialize requests in flight
}

type httpSession struct {
	active int       // requests in flight (an open stream counts)
	last   time.Time // when the last request started or ended
}

var _ http.Handler = (*HTTPHandler)(nil)

// Handler returns the HTTP handler of srv over Streamable HTTP (opts may be nil). The
// SDK's own DNS-rebinding check (a loopback listener refuses a foreign Host header)
// stays on.
func Handler(srv *mcp.Server, opts *HTTPOptions) *HTTPHandler {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	h := &HTTPHandler{srv: srv, max: o.MaxSessions, idle: o.IdleTimeout, log: o.Logger, now: o.Now,
		origins: map[string]bool{}, sessions: map[string]*httpSession{}}
	if h.max == 0 {
		h.max = DefaultMaxSessions
	}
	if h.idle == 0 {
		h.idle = DefaultIdleTimeout
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.now == nil {
		h.now = time.Now
	}
	if o.Token != "" {
		h.token = []byte("Bearer " + o.Token)
	}
	for _, origin := range o.AllowedOrigins {
		if norm, ok := normOrigin(origin); ok {
			h.origins[norm] = true
		}
	}
	h.sdk = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Logger: o.Logger})
	return h
}

// normOrigin returns an origin as lower-case scheme://host[:port], or false when it is not
// one (such as "null").
func normOrigin(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), true
}

func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.token != nil && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), h.token) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="harnesskit"`)
		h.refuse(w, r, http.StatusUnauthorized, "missing or wrong bearer token")
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		if norm, ok := normOrigin(origin); !ok || !h.origins[norm] {
			h.refuse(w, r, http.StatusForbidden, fmt.Sprintf("origin %q is not allowed", origin))
			return
		}
	}
	rec := &recorder{ResponseWriter: w}
	id := r.Header.Get("Mcp-Session-Id")
	switch {
	case id == "" && r.Method == http.MethodPost:
		if !h.reserve() {
			w.Header().Set("Retry-After", "60")
			h.refuse(w, r, http.StatusServiceUnavailable, fmt.Sprintf("too many sessions (%d open); close one or try again later", h.max))
			return
		}
		h.sdk.ServeHTTP(rec, r)
		h.opened(rec.Header().Get("Mcp-Session-Id"), rec.status)
	case id != "":
		h.touch(id, +1)
		h.sdk.ServeHTTP(rec, r)
		h.touch(id, -1)
		if r.Method == http.MethodDelete && rec.status/100 == 2 {
			h.forget(id)
		}
	default:
		h.sdk.ServeHTTP(rec, r)
	}
	if rec.status >= 400 {
		h.log.Warn("refused request", "status", rec.status, "method", r.Method, "remote", r.RemoteAddr, "reason", strings.TrimSpace(string(rec.head)))
	}
}

// refuse answers with status and logs the request.
func (h *HTTPHandler) refuse(w http.ResponseWriter, r *http.Request, status int, reason string) {
	h.log.Warn("refused request", "status", status, "method", r.Method, "remote", r.RemoteAddr, "reason", reason)
	http.Error(w, reason, status)
}

// reserve makes room for a new session, expiring idle ones when the table is full, and
// reports whether there is room.
func (h *HTTPHandler) reserve() bool {
	if h.max < 0 {
		return true
	}
	h.mu.Lock()
	full := len(h.sessions)+h.opening >= h.max
	h.mu.Unlock()
	if full {
		h.Expire()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.sessions)+h.opening >= h.max {
		return false
	}
	h.opening++
	return true
}

// opened records the session an initialize request created (id "" when it failed).
func (h *HTTPHandler) opened(id string, status int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.max >= 0 {
		h.opening--
	}
	if id != "" && status/100 == 2 {
		h.sessions[id] = &httpSession{last: h.now()}
	}
}

// touch marks a request of session id starting (+1) or ending (-1).
func (h *HTTPHandler) touch(id string, delta int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.sessions[id]; ok {
		s.active += delta
		s.last = h.now()
	}
}

func (h *HTTPHandler) forget(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.sessions, id)
}

// Expire closes the sessions idle for IdleTimeout or longer, forgets those the client
// or the server already closed, and returns how many it closed.
func (h *HTTPHandler) Expire() int {
	live := map[string]*mcp.ServerSession{}
	for ss := range h.srv.Sessions() {
		if id := ss.ID(); id != "" {
			live[id] = ss
		}
	}
	var idle []*mcp.ServerSession
	h.mu.Lock()
	now := h.now()
	for id, s := range h.sessions {
		ss, ok := live[id]
		switch {
		case !ok:
			delete(h.sessions, id)
		case h.idle > 0 && s.active == 0 && now.Sub(s.last) >= h.idle:
			delete(h.sessions, id)
			idle = append(idle, ss)
		}
	}
	h.mu.Unlock()
	for _, ss := range idle {
		h.log.Info("closing an idle session", "session", ss.ID(), "idle for more than", h.idle)
		ss.Close()
	}
	return len(idle)
}

// recorder keeps the status of a response and the start of an error body, for the log.
type recorder struct {
	http.ResponseWriter
	status int
	head   []byte
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.status >= 400 && len(r.head) < 200 {
		r.head = append(r.head, p[:min(len(p), 200-len(r.head))]...)
	}
	return r.ResponseWriter.Write(p)
}

// Flush passes on the flushes the SDK makes for event streams.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// ServeHTTP listens on addr (checked with ListenAddr against opts.Token) and serves srv
// with Handler(srv, opts) until ctx is done, then shuts the listener down, waiting up to
// grace for calls in flight. It expires idle sessions once a minute. Build srv with
// Options.Context set to ctx (or a context ending with it) so that calls in flight are
// cancelled rather than waited for. ready, when not nil, is called with the bound address
// once listening (useful with port 0).
func ServeHTTP(ctx context.Context, srv *mcp.Server, addr string, opts *HTTPOptions, grace time.Duration, ready func(net.Addr)) error {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	if err := ListenAddr(addr, o.Token); err != nil {
		return err
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcpserver: %w", err)
	}
	h := Handler(srv, &o)
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if ready != nil {
		ready(ln.Addr())
	}
	log.Info("serving MCP over HTTP", "addr", ln.Addr().String(), "token", o.Token != "", "max sessions", h.max, "idle timeout", h.idle)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	tick := time.NewTicker(time.Minute)
	defer tick.Stop()
	for wait := true; wait; {
		select {
		case err := <-errc:
			return fmt.Errorf("mcpserver: %w", err)
		case <-tick.C:
			h.Expire()
		case <-ctx.Done():
			wait = false
		}
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
