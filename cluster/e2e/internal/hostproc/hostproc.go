// Package hostproc is one host process of the end-to-end tests and the demo: a shared
// task-board driver on etcd, driven by JSON commands on stdin.
package hostproc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/harnesskit/harnesskit/cluster"
	"github.com/harnesskit/harnesskit/cluster/e2e/internal/remote"
	"github.com/harnesskit/harnesskit/taskboard"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

var orch = taskboard.Caller{SessionID: "orch", Agent: "orchestrator"}

// Command is one command a host process reads from stdin, one JSON line each.
type Command struct {
	Op, Ref, Text string
}

// Answer is a host process's reply, one JSON line on stdout per command (the first line
// names its incarnation).
type Answer struct {
	Out  string
	Err  string
	Kind string // the taskboard sentinel the error wraps
}

var sentinels = map[string]error{
	"ErrLeaseUnavailable": taskboard.ErrLeaseUnavailable, "ErrLeaseHeld": taskboard.ErrLeaseHeld,
	"ErrTimeout": taskboard.ErrTimeout, "ErrStale": taskboard.ErrStale, "ErrUnknownTask": taskboard.ErrUnknownTask,
	"ErrHost": taskboard.ErrHost, "ErrNotRunning": taskboard.ErrNotRunning,
}

// Main runs a host process: it joins etcd (E2E_ETCD, comma-separated client URLs, with the
// liveness TTL E2E_TTL), builds a shared driver whose host calls go to the fake host at
// E2E_FAKE, and answers commands from stdin until stdin closes. Commands run concurrently,
// so a blocked call never delays the next.
func Main() int {
	ttl, _ := time.ParseDuration(os.Getenv("E2E_TTL"))
	abortTimeout, _ := time.ParseDuration(os.Getenv("E2E_ABORT_TIMEOUT"))
	cl, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(os.Getenv("E2E_ETCD"), ","), DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
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
	rh := &remote.Client{URL: os.Getenv("E2E_FAKE")}
	d, err := taskboard.NewSharedDriver(m.Store(), m.Incarnation(), rh.Host(),
		taskboard.Options{NoReconciliation: true, Timing: taskboard.Timing{AbortTimeout: abortTimeout}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	out := json.NewEncoder(os.Stdout)
	var mu sync.Mutex
	reply := func(a Answer) { mu.Lock(); out.Encode(a); mu.Unlock() }
	reply(Answer{Out: m.Incarnation()})
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var c Command
		if json.Unmarshal(sc.Bytes(), &c) != nil {
			continue
		}
		go func() { reply(run(d, c)) }() // a blocked call never delays the next command
	}
	return 0
}

func run(d *taskboard.Driver, c Command) Answer {
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
	case "status":
		var res taskboard.StatusResult
		res, err = d.Status(ctx, orch, c.Ref)
		out = res.Render()
	case "view":
		out, err = d.View(c.Ref)
	case "message":
		_, err = d.Message(ctx, orch, c.Ref, c.Text)
	case "cancel":
		var res taskboard.CancelResult
		res, err = d.Cancel(ctx, orch, c.Ref, c.Text)
		out = res.Render()
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
	a := Answer{Out: out}
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
