package e2e

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/cluster/e2e/internal/hostproc"
	"github.com/harnesskit/harnesskit/cluster/e2e/internal/remote"
	"github.com/harnesskit/harnesskit/taskboard/taskboardtest"
)

// Host processes: the test binary started again with E2E_HOST set runs one host process
// (hostMain): it joins etcd, builds a shared driver whose host calls go over HTTP to the
// fake host served by the test process (which records every call), and answers commands
// read from stdin, one JSON line each.

func TestMain(m *testing.M) {
	if os.Getenv("E2E_HOST") != "" {
		os.Exit(hostproc.Main())
	}
	os.Exit(m.Run())
}

type (
	command = hostproc.Command
	answer  = hostproc.Answer
)

// serveFake serves fake for the host processes until the test ends.
func serveFake(t *testing.T, fake *taskboardtest.Host) string {
	t.Helper()
	url, stop, err := remote.Serve(fake)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return url
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
