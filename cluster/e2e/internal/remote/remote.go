// Package remote carries a fake agent host over HTTP on loopback: the process that owns
// the fake (a test, the demo) serves it with Serve, and host processes reach it through a
// Client, which implements taskboard's host interfaces. Every call is recorded by the fake.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"

	"github.com/harnesskit/harnesskit/taskboard"
	"github.com/harnesskit/harnesskit/taskboard/taskboardtest"
)

// Client is a host process's view of the fake host: every call is one HTTP request.
type Client struct{ URL string }

var (
	_ taskboard.Aborter       = (*Client)(nil)
	_ taskboard.Prompter      = (*Client)(nil)
	_ taskboard.SessionReader = (*Client)(nil)
	_ taskboard.IdleWaiter    = (*Client)(nil)
)

// Host returns the v2 host bundle of c.
func (c *Client) Host() taskboard.Host {
	return taskboard.Host{Aborter: c, Prompter: c, Sessions: c, Idle: c, Flavor: taskboard.FlavorV2}
}

type hostCall struct {
	Op, Session string
	Message     taskboard.Message
	Prompt      taskboard.Message
	Limit       int
}

type hostReply struct {
	Confirmed bool
	Info      taskboard.SessionInfo
	Entries   []taskboard.TranscriptEntry
	Err       string
}

func (h *Client) call(ctx context.Context, c hostCall) (hostReply, error) {
	body, _ := json.Marshal(c)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return hostReply{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return hostReply{}, err
	}
	defer resp.Body.Close()
	var r hostReply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return hostReply{}, err
	}
	if r.Err != "" {
		return r, errors.New(r.Err)
	}
	return r, nil
}

func (h *Client) Abort(ctx context.Context, id string) (bool, error) {
	r, err := h.call(ctx, hostCall{Op: "abort", Session: id})
	return r.Confirmed, err
}
func (h *Client) Enqueue(ctx context.Context, id string, m taskboard.Message) error {
	_, err := h.call(ctx, hostCall{Op: "enqueue", Session: id, Message: m})
	return err
}
func (h *Client) PromptAsync(ctx context.Context, id string, p taskboard.Message) error {
	_, err := h.call(ctx, hostCall{Op: "prompt", Session: id, Prompt: p})
	return err
}
func (h *Client) Session(ctx context.Context, id string) (taskboard.SessionInfo, error) {
	r, err := h.call(ctx, hostCall{Op: "session", Session: id})
	return r.Info, err
}
func (h *Client) Messages(ctx context.Context, id string, limit int) ([]taskboard.TranscriptEntry, error) {
	r, err := h.call(ctx, hostCall{Op: "messages", Session: id, Limit: limit})
	return r.Entries, err
}
func (h *Client) WaitIdle(ctx context.Context, id string) error {
	_, err := h.call(ctx, hostCall{Op: "wait_idle", Session: id})
	return err
}

// Serve serves fake on a loopback port and returns its URL and a function that stops it.
// A request's context ends when its host process dies, so a delayed call then returns.
func Serve(fake *taskboardtest.Host) (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var c hostCall
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ctx := r.Context() // ends when the host process dies
		var rep hostReply
		var err error
		switch c.Op {
		case "abort":
			rep.Confirmed, err = fake.Abort(ctx, c.Session)
		case "enqueue":
			err = fake.Enqueue(ctx, c.Session, c.Message)
		case "prompt":
			err = fake.PromptAsync(ctx, c.Session, c.Prompt)
		case "session":
			rep.Info, err = fake.Session(ctx, c.Session)
		case "messages":
			rep.Entries, err = fake.Messages(ctx, c.Session, c.Limit)
		case "wait_idle":
			err = fake.WaitIdle(ctx, c.Session)
		}
		if err != nil {
			rep.Err = err.Error()
		}
		json.NewEncoder(w).Encode(rep)
	})}
	go srv.Serve(l)
	return "http://" + l.Addr().String(), func() { srv.Close() }, nil
}
