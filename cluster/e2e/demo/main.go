// Command demo shows one task board shared by three host processes: it starts an embedded
// etcd member and three host processes on loopback (this program started again), then
// launches a background task through the first, reads its status and cancels it through
// the second, and shows the third's view of the board. The agent runtime is a fake that
// the demo serves and that records every call.
//
//	go run ./cluster/e2e/demo
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/harnesskit/harnesskit/cluster/e2e/internal/hostproc"
	"github.com/harnesskit/harnesskit/cluster/e2e/internal/remote"
	"github.com/harnesskit/harnesskit/taskboard"
	"github.com/harnesskit/harnesskit/taskboard/taskboardtest"
	"go.etcd.io/etcd/server/v3/embed"
)

func main() {
	if os.Getenv("E2E_HOST") != "" {
		os.Exit(hostproc.Main())
	}
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

type host struct {
	name string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *json.Decoder
}

func (h *host) do(c hostproc.Command) (hostproc.Answer, error) {
	b, _ := json.Marshal(c)
	if _, err := h.in.Write(append(b, '\n')); err != nil {
		return hostproc.Answer{}, err
	}
	var a hostproc.Answer
	err := h.out.Decode(&a)
	return a, err
}

func loopback() (*url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer l.Close()
	return url.Parse("http://" + l.Addr().String())
}

func run(w io.Writer) error {
	dir, err := os.MkdirTemp("", "harnesskit-board-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg := embed.NewConfig()
	cfg.Name, cfg.Dir, cfg.LogLevel = "demo", dir, "fatal" // its shutdown logs errors at error level
	cu, err := loopback()
	if err != nil {
		return err
	}
	pu, err := loopback()
	if err != nil {
		return err
	}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
	cfg.InitialCluster = "demo=" + pu.String()
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(time.Minute):
		return fmt.Errorf("etcd did not start within a minute")
	}
	fmt.Fprintf(w, "etcd: one embedded member on loopback\n")

	fake := taskboardtest.New(taskboard.FlavorV2, nil)
	fakeURL, stop, err := remote.Serve(fake)
	if err != nil {
		return err
	}
	defer stop()

	self, err := os.Executable()
	if err != nil {
		return err
	}
	var hosts []*host
	defer func() {
		for _, h := range hosts {
			h.in.Close()
			h.cmd.Process.Kill()
			h.cmd.Wait()
		}
	}()
	for _, name := range []string{"A", "B", "C"} {
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(), "E2E_HOST=1", "E2E_ETCD="+cu.String(), "E2E_FAKE="+fakeURL, "E2E_TTL=5s")
		cmd.Stderr = os.Stderr
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			return err
		}
		h := &host{name: name, cmd: cmd, in: in, out: json.NewDecoder(out)}
		hosts = append(hosts, h)
		var hello hostproc.Answer
		if err := h.out.Decode(&hello); err != nil {
			return fmt.Errorf("host %s did not start: %w", name, err)
		}
	}
	fmt.Fprintf(w, "hosts: A, B and C, three processes sharing the board through etcd\n")

	say := func(h *host, what string, c hostproc.Command) error {
		a, err := h.do(c)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\nhost %s: %s\n", h.name, what)
		text := a.Out
		if a.Err != "" {
			text = "error: " + a.Err
		}
		for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			if strings.HasPrefix(l, "last_activity_at:") || strings.HasPrefix(l, "idle_for_seconds:") {
				continue // clock readings: the demo's output stays the same from run to run
			}
			fmt.Fprintf(w, "   | %s\n", l)
		}
		return nil
	}
	a, b, c := hosts[0], hosts[1], hosts[2]
	if _, err := a.do(hostproc.Command{Op: "manage", Ref: "orch"}); err != nil {
		return err
	}
	fake.Start("ses_demo", "orch", "map the callers of Greet") // the runtime starts the session
	steps := []struct {
		h    *host
		what string
		c    hostproc.Command
	}{
		{a, "task(): launch an explorer in the background", hostproc.Command{Op: "launch", Ref: "ses_demo"}},
		{b, "task_status of exp-1 (the board says running; a v2 host has no status map)", hostproc.Command{Op: "status", Ref: "exp-1"}},
		{b, "task_cancel of exp-1", hostproc.Command{Op: "cancel", Ref: "exp-1", Text: "plan changed"}},
		{c, "the orchestrator's view of the board", hostproc.Command{Op: "view", Ref: "orch"}},
	}
	for _, s := range steps {
		if err := say(s.h, s.what, s.c); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\nagent runtime calls, in order:\n")
	for _, call := range fake.Calls() {
		fmt.Fprintf(w, "  %s\n", strings.TrimSpace(call))
	}
	return nil
}
