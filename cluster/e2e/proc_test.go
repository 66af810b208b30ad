package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/cluster"
	"github.com/harnesskit/harnesskit/taskboard"
	"github.com/harnesskit/harnesskit/taskboard/taskboardtest"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Host processes: the test binary started again with E2E_HOST set runs one host process
// (hostMain): it joins etcd, builds a shared driver whose host calls go over HTTP to the
// fake host served by the test process (which records every call), and answers commands
// read from stdin, one JSON line each.

func TestMain(m *testing.M) {
	if os.Getenv("E2E_HOST") != "" {
		os.Exit(hostMain())
	}
	os.Exit(m.Run())
}

type command struct {
	Op, Ref, Text string
}

type answer struct {
	Out  string
	Err  string
	Kind string // the taskboard sentinel the error wraps
}

var sentinels = map[string]error{
	"ErrLeaseUnavailable": taskboard.ErrLeaseUnavailable, "ErrLeaseHeld": taskboard.ErrLeaseHeld,
	"ErrTimeout": taskboard.ErrTimeout, "ErrStale": taskboard.ErrStale, "ErrUnknownTask": taskboard.ErrUnknownTask,
	"ErrHost": taskboard.ErrHost, "ErrNotRunning": taskboard.ErrNotRunning,
}

func hostMain() int {
	ttl, _ := time.ParseDuration(os.Getenv("E2E_TTL"))
	abortTimeout, _ := time.ParseDuration(os.Getenv("E2E_ABORT_TIMEOUT"))
	cl, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(os.Getenv("E2E_ETCD"), ","), DialTimeout: 10 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	m, err := cluster.Join(ctx, cl, "board/", ttl)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	rh := &remoteHost{url: os.Getenv("E2E_FAKE")}
	d, err := taskboard.NewSharedDriver(m.Store(), m.Incarnation(), taskboard.Host{Aborter: rh, Prompter: rh, Sessions: rh, Idle: rh, Flavor: taskboard.FlavorV2},
		taskboard.Options{NoReconciliation: true, Timing: taskboard.Timing{AbortTimeout: abortTimeout}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	out := json.NewEncoder(os.Stdout)
	var mu sync.Mutex
	reply := func(a answer) { mu.Lock(); out.Encode(a); mu.Unlock() }
	reply(answer{Out: m.Incarnation()})
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var c command
		if json.Unmarshal(sc.Bytes(), &c) != nil {
			continue
		}
		go func() { reply(run(d, c)) }() // a blocked call never delays the next command
	}
	return 0
}

func run(d *taskboard.Driver, c command) answer {
	ctx := context.Background()
	var out string
	var err error
	switch c.Op {
	case "manage":
		err = d.Manage(c.Ref)
	case "launch":
		var plan taskboard.TaskPlan
		if plan, err = d.Task(ctx, orch, taskboard.TaskCall{Agent: "explorer", Description: "task " + c.Ref, Background: true}); err == nil {
			var res taskboard.TaskLaunchResult
			res, err = d.FinishTask(plan, taskboard.LaunchObservation{TaskID: c.Ref, Background: true})
			out = res.Alias
		}
	case "message":
		_, err = d.Message(ctx, orch, c.Ref, c.Text)
	case "cancel":
		var res taskboard.CancelResult
		res, err = d.Cancel(ctx, orch, c.Ref, c.Text)
		out = string(res.State)
	case "takeover":
		var l taskboard.Lease
		l, err = d.TakeOver(c.Ref, c.Text)
		out = l.String()
	case "leases":
		d.Do("orch", func(b *taskboard.Board) {
			for _, l := range b.LiveLeases() {
				out += l.String() + "\n"
			}
		})
	case "forced":
		d.Do("orch", func(b *taskboard.Board) {
			for _, l := range b.ForcedReleases() {
				out += l.Reason + "\n"
			}
		})
	}
	a := answer{Out: out}
	if err != nil {
		a.Err = err.Error()
		for name, s := range sentinels {
			if errors.Is(err, s) {
				a.Kind = name
			}
		}
	}
	return a
}

// remoteHost is a host process's view of the fake host: every call is one HTTP request.
type remoteHost struct{ url string }

type hostCall struct {
	Op, Session string
	Message     taskboard.Message
	Prompt      taskboard.Prompt
	Limit       int
}

type hostReply struct {
	Confirmed bool
	Info      taskboard.SessionInfo
	Entries   []taskboard.TranscriptEntry
	Err       string
}

func (h *remoteHost) call(ctx context.Context, c hostCall) (hostReply, error) {
	body, _ := json.Marshal(c)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
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

func (h *remoteHost) Abort(ctx context.Context, id string) (bool, error) {
	r, err := h.call(ctx, hostCall{Op: "abort", Session: id})
	return r.Confirmed, err
}
func (h *remoteHost) Enqueue(ctx context.Context, id string, m taskboard.Message) error {
	_, err := h.call(ctx, hostCall{Op: "enqueue", Session: id, Message: m})
	return err
}
func (h *remoteHost) PromptAsync(ctx context.Context, id string, p taskboard.Prompt) error {
	_, err := h.call(ctx, hostCall{Op: "prompt", Session: id, Prompt: p})
	return err
}
func (h *remoteHost) Session(ctx context.Context, id string) (taskboard.SessionInfo, error) {
	r, err := h.call(ctx, hostCall{Op: "session", Session: id})
	return r.Info, err
}
func (h *remoteHost) Messages(ctx context.Context, id string, limit int) ([]taskboard.TranscriptEntry, error) {
	r, err := h.call(ctx, hostCall{Op: "messages", Session: id, Limit: limit})
	return r.Entries, err
}
func (h *remoteHost) WaitIdle(ctx context.Context, id string) error {
	_, err := h.call(ctx, hostCall{Op: "wait_idle", Session: id})
	return err
}

// serveFake serves fake on loopback for the host processes and returns its URL.
func serveFake(t *testing.T, fake *taskboardtest.Host) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
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
	t.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String()
}

// proc is one host process started by the test.
type proc struct {
	t    *testing.T
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  chan answer
	inc  string
	mu   sync.Mutex
	dead bool
}

func startProc(t *testing.T, ec *etcdCluster, fakeURL string, ttl, abortTimeout time.Duration) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "E2E_HOST=1", "E2E_ETCD="+strings.Join(ec.clients, ","), "E2E_FAKE="+fakeURL,
		"E2E_TTL="+ttl.String(), "E2E_ABORT_TIMEOUT="+abortTimeout.String())
	in, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, in: in, out: make(chan answer, 16)}
	go func() {
		dec := json.NewDecoder(stdout)
		for {
			var a answer
			if dec.Decode(&a) != nil {
				close(p.out)
				return
			}
			p.out <- a
		}
	}()
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	p.inc = p.wait(time.Minute).Out
	if p.inc == "" {
		t.Fatal("host process did not start")
	}
	return p
}

// send writes a command; wait reads the next answer.
func (p *proc) send(c command) {
	b, _ := json.Marshal(c)
	p.in.Write(append(b, '\n'))
}

func (p *proc) wait(d time.Duration) answer {
	select {
	case a, ok := <-p.out:
		if !ok {
			p.t.Fatal("host process exited")
		}
		return a
	case <-time.After(d):
		p.t.Fatalf("host process %s: no answer within %s", p.inc, d)
		return answer{}
	}
}

func (p *proc) do(c command) answer {
	p.send(c)
	return p.wait(2 * time.Minute)
}
