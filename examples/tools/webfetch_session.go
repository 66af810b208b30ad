package tools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/harnesskit/harnesskit/webfetch"
)

// SessionHost is the part of an agent host a session summarizer needs: child sessions with
// tools disabled, one prompt, abort and delete. Prompt must return when its context ends
// (the summarizer waits for it, so that no goroutine outlives a call).
type SessionHost interface {
	CreateChild(ctx context.Context, parentID, title string) (string, error)
	Prompt(ctx context.Context, sessionID string, ref ModelRef, system, user string) (string, error)
	Abort(ctx context.Context, sessionID string) error
	Delete(ctx context.Context, sessionID string) error
}

// SessionOption configures NewSessionSummarizer.
type SessionOption func(*SessionSummarizer)

// WithSessionTitle sets the child session's title (default "webfetch-secondary").
func WithSessionTitle(title string) SessionOption {
	return func(s *SessionSummarizer) { s.title = title }
}

// WithSessionLogger receives the one warning logged when a child session cannot be deleted.
func WithSessionLogger(l *slog.Logger) SessionOption {
	return func(s *SessionSummarizer) { s.logger = l }
}

// WithSessionRetryDelay sets the pause between deletion attempts (default 500 ms).
func WithSessionRetryDelay(d time.Duration) SessionOption {
	return func(s *SessionSummarizer) { s.retryDelay = d }
}

// WithSessionWait replaces how the summarizer waits between deletion attempts (default: a
// timer that also ends with the context). Tests pass one that returns at once.
func WithSessionWait(wait func(ctx context.Context, d time.Duration) error) SessionOption {
	return func(s *SessionSummarizer) { s.wait = wait }
}

// errCleanupPending is the error of a call that found an earlier child session still to be
// deleted and could not delete it in its own time; the fetch then returns its content with
// this message as secondary_model_error.
var errCleanupPending = errors.New("A secondary model session cleanup is still pending; using fetched content without starting another session")

const (
	deleteAttempts = 3
	// abortGrace bounds the Abort and the first deletion attempt made after the call's
	// context has ended.
	abortGrace = time.Second
)

// SessionSummarizer runs one model in a temporary child session of the caller's session and
// deletes the session afterwards. Build it with NewSessionSummarizer; it is safe for
// concurrent use.
//
// Everything happens within the call: the prompt runs on the call's context; after an
// answer the session is deleted, up to three attempts 500 ms apart, within the call's time.
// When the context ends first, the session is aborted once and left for deletion: the next
// call deletes it before it creates a session (and, if it cannot in its own time, fails at
// once, "A secondary model session cleanup is still pending…", rather than pile up
// sessions), as does Cleanup. A session that
// cannot be deleted after three attempts is given up with one logged warning, never an
// error. No goroutine is started and nothing sleeps outside a call.
type SessionSummarizer struct {
	host       SessionHost
	ref        ModelRef
	title      string
	logger     *slog.Logger
	retryDelay time.Duration
	wait       func(context.Context, time.Duration) error

	mu      sync.Mutex
	pending map[string]int // sessions to delete → attempts made
	warned  bool
}

// NewSessionSummarizer returns a summarizer that prompts ref in child sessions of h.
func NewSessionSummarizer(h SessionHost, ref ModelRef, opts ...SessionOption) *SessionSummarizer {
	s := &SessionSummarizer{host: h, ref: ref, title: "webfetch-secondary", retryDelay: 500 * time.Millisecond, wait: waitCtx, pending: map[string]int{}}
	for _, o := range opts {
		o(s)
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	return s
}

func waitCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Summarize answers req in a new child session of req.SessionID (none when empty).
func (s *SessionSummarizer) Summarize(ctx context.Context, req webfetch.SummaryRequest) (webfetch.Summary, error) {
	if err := s.Cleanup(ctx); err != nil {
		return webfetch.Summary{}, errCleanupPending
	}
	id, err := s.host.CreateChild(ctx, req.SessionID, s.title)
	if err != nil {
		return webfetch.Summary{}, fmt.Errorf("creating the secondary model session failed: %w", err)
	}
	text, err := s.host.Prompt(ctx, id, s.ref, req.System, req.User)
	if ctx.Err() != nil {
		// The prompt was cut: stop the model once, try one deletion within a short grace,
		// and leave the session for the next call if that fails.
		grace, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortGrace)
		defer cancel()
		_ = s.host.Abort(grace, id)
		s.mu.Lock()
		s.pending[id] = 0
		s.mu.Unlock()
		s.deleteOne(grace, id, false)
		return webfetch.Summary{}, ctx.Err()
	}
	s.mu.Lock()
	s.pending[id] = 0
	s.mu.Unlock()
	_ = s.Cleanup(ctx)
	if err != nil {
		return webfetch.Summary{}, err
	}
	return webfetch.Summary{Text: text, Model: s.ref.String()}, nil
}

// Cleanup deletes the child sessions left by calls whose context ended, each with up to
// three attempts (counting earlier ones) spaced by the retry delay, within ctx. It returns
// an error when some session is still to be deleted as ctx ends.
func (s *SessionSummarizer) Cleanup(ctx context.Context) error {
	s.mu.Lock()
	ids := make([]string, 0, len(s.pending))
	for id := range s.pending {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		for !s.deleteOne(ctx, id, true) {
			if err := s.wait(ctx, s.retryDelay); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteOne makes one deletion attempt of a pending session and reports whether the session
// is settled: deleted, or given up after the last attempt (logged once). A pending session
// that is not settled stays pending. With final false the attempt does not count towards
// giving up (an attempt made after the call's context ended).
func (s *SessionSummarizer) deleteOne(ctx context.Context, id string, final bool) bool {
	s.mu.Lock()
	attempts, ok := s.pending[id]
	s.mu.Unlock()
	if !ok {
		return true // settled by a concurrent call
	}
	err := s.host.Delete(ctx, id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		delete(s.pending, id)
		return true
	}
	if !final {
		return false
	}
	attempts++
	s.pending[id] = attempts
	if attempts < deleteAttempts {
		return false
	}
	delete(s.pending, id)
	if !s.warned {
		s.warned = true
		s.logger.Warn("webfetch: could not delete a secondary model session", "session", id, "error", strings.TrimSpace(err.Error()))
	}
	return true
}

var _ webfetch.Summarizer = (*SessionSummarizer)(nil)
