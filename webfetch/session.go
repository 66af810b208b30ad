package webfetch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// SessionHost is the part of an agent host a session summarizer needs: child sessions with
// tools disabled, one prompt, abort and delete.
type SessionHost interface {
	CreateChild(ctx context.Context, parentID, title string) (string, error)
	Prompt(ctx context.Context, sessionID string, ref ModelRef, system, user string) (string, error)
	Abort(ctx context.Context, sessionID string) error
	Delete(ctx context.Context, sessionID string) error
}

// SessionOption configures NewSessionSummarizer.
type SessionOption func(*sessionSummarizer)

// WithSessionTitle sets the child session's title (default "webfetch-secondary").
func WithSessionTitle(title string) SessionOption {
	return func(s *sessionSummarizer) { s.title = title }
}

// WithSessionLogger receives the one warning logged when a child session cannot be deleted.
func WithSessionLogger(l *slog.Logger) SessionOption {
	return func(s *sessionSummarizer) { s.logger = l }
}

// WithSessionRetryDelay sets the pause between deletion attempts (default 500 ms).
func WithSessionRetryDelay(d time.Duration) SessionOption {
	return func(s *sessionSummarizer) { s.retryDelay = d }
}

// errCleanupPending is returned while a timed-out child session awaits deletion.
var errCleanupPending = errors.New("A secondary model session cleanup is still pending; using fetched content without starting another session")

const deleteAttempts = 3

type sessionSummarizer struct {
	host       SessionHost
	ref        ModelRef
	title      string
	logger     *slog.Logger
	retryDelay time.Duration

	mu      sync.Mutex
	pending bool
	warned  bool
}

// NewSessionSummarizer runs one model in a temporary child session of the caller's session
// (Request.SessionID; none when empty) and deletes the session afterwards, retrying deletion
// three times 500 ms apart and logging a persistent failure once.
//
// When the call's context ends first, the child session is aborted once and the call
// returns; deletion then waits, in a goroutine that outlives the call, for the pending prompt
// to settle. Until it has, new calls fail at once without creating a session. This is the
// only goroutine in the package that outlives a call, and it ends when the host's Prompt
// returns.
func NewSessionSummarizer(h SessionHost, ref ModelRef, opts ...SessionOption) Summarizer {
	s := &sessionSummarizer{host: h, ref: ref, title: "webfetch-secondary", retryDelay: 500 * time.Millisecond}
	for _, o := range opts {
		o(s)
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	return s
}

func (s *sessionSummarizer) Summarize(ctx context.Context, req SummaryRequest) (Summary, error) {
	s.mu.Lock()
	if s.pending {
		s.mu.Unlock()
		return Summary{}, errCleanupPending
	}
	s.mu.Unlock()
	id, err := s.host.CreateChild(ctx, req.SessionID, s.title)
	if err != nil {
		return Summary{}, fmt.Errorf("creating the secondary model session failed: %w", err)
	}
	type reply struct {
		text string
		err  error
	}
	done := make(chan reply, 1)
	go func() {
		t, err := s.host.Prompt(ctx, id, s.ref, req.System, req.User)
		done <- reply{t, err}
	}()
	select {
	case r := <-done:
		s.remove(id)
		if r.err != nil {
			return Summary{}, r.err
		}
		return Summary{Text: r.text, Model: s.ref.String()}, nil
	case <-ctx.Done():
		s.mu.Lock()
		s.pending = true
		s.mu.Unlock()
		_ = s.host.Abort(context.WithoutCancel(ctx), id)
		go func() {
			<-done
			s.remove(id)
			s.mu.Lock()
			s.pending = false
			s.mu.Unlock()
		}()
		return Summary{}, ctx.Err()
	}
}

// remove deletes a child session, retrying, and logs a persistent failure once.
func (s *sessionSummarizer) remove(id string) {
	var err error
	for i := range deleteAttempts {
		if err = s.host.Delete(context.Background(), id); err == nil {
			return
		}
		if i < deleteAttempts-1 {
			time.Sleep(s.retryDelay)
		}
	}
	s.mu.Lock()
	first := !s.warned
	s.warned = true
	s.mu.Unlock()
	if first {
		s.logger.Warn("webfetch: could not delete a secondary model session", "session", id, "error", strings.TrimSpace(err.Error()))
	}
}

var _ Summarizer = (*sessionSummarizer)(nil)
