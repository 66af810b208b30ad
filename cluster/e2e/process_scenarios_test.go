//go:build unix

package e2e

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harnesskit/harnesskit/taskboard"
	"github.com/harnesskit/harnesskit/taskboard/store"
	"github.com/harnesskit/harnesskit/taskboard/taskboardtest"
)

func calls(fake *taskboardtest.Host, op string) int { return count(fake, op+" ") }

// alive reports whether an incarnation's liveness key exists.
func alive(t *testing.T, ec *etcdCluster, inc string) bool {
	cl := ec.client(t)
	resp, err := cl.Get(context.Background(), "board/"+store.LivenessPrefix+inc)
	if err != nil {
		t.Fatal(err)
	}
	return len(resp.Kvs) > 0
}

// TestProcessKilledMidCancel: three host processes; A's abort never answers and A is
// killed with SIGKILL. The task stays excluded at B and C for more than 3× the liveness
// TTL, TakeOver is refused while A lived and audited after, and no second abort is sent.
func TestProcessKilledMidCancel(t *testing.T) {
	ec := startEtcd(t, 3)
	fake := taskboardtest.New(taskboard.FlavorV2, nil)
	url := serveFake(t, fake)
	const ttl = 2 * time.Second
	a, b, c := startProc(t, ec, url, ttl, 500*time.Millisecond), startProc(t, ec, url, ttl, 500*time.Millisecond), startProc(t, ec, url, ttl, 500*time.Millisecond)
	if r := a.do(command{Op: "manage", Ref: "orch"}); r.Err != "" {
		t.Fatal(r.Err)
	}
	fake.Start("ses_k", "orch", "task")
	if r := a.do(command{Op: "launch", Ref: "ses_k"}); r.Err != "" || r.Out != "exp-1" {
		t.Fatalf("launch: %+v", r)
	}
	fake.Delay(taskboardtest.OpAbort, time.Hour)
	if r := a.do(command{Op: "cancel", Ref: "exp-1", Text: "stop"}); r.Kind != "ErrTimeout" {
		t.Fatalf("cancel at A: %+v", r)
	}
	if r := b.do(command{Op: "takeover", Ref: "ses_k", Text: "A looks stuck"}); r.Kind != "ErrLeaseHeld" {
		t.Fatalf("takeover while A lives: %+v", r)
	}
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	a.cmd.Wait()
	killed := time.Now()
	for time.Since(killed) < 3*ttl+time.Second {
		for _, p := range []*proc{b, c} {
			if r := p.do(command{Op: "cancel", Ref: "exp-1", Text: "again"}); r.Kind != "ErrLeaseUnavailable" {
				t.Fatalf("cancel at %s %s after the kill: %+v", p.inc, time.Since(killed), r)
			}
		}
		time.Sleep(300 * time.Millisecond)
	}
	if alive(t, ec, a.inc) {
		t.Fatalf("A's liveness key outlived 3×TTL after SIGKILL")
	}
	r := b.do(command{Op: "takeover", Ref: "ses_k", Text: "A was killed mid-cancel"})
	if r.Err != "" || !strings.Contains(r.Out, "cancellation") {
		t.Fatalf("takeover after the kill: %+v", r)
	}
	if r := c.do(command{Op: "forced"}); !strings.Contains(r.Out, "taken over by "+b.inc+" from dead holder "+a.inc+": A was killed mid-cancel") {
		t.Fatalf("audit at C: %q", r.Out)
	}
	if n := calls(fake, "abort"); n != 1 {
		t.Fatalf("%d aborts, want 1: %v", n, fake.Calls())
	}
}

// TestProcessPausedPastTTL: A's message write is in flight when A is stopped (SIGSTOP)
// until its liveness key expires. B still sees the task excluded; after SIGCONT the write's
// settlement releases A's own lease, and B can then act.
func TestProcessPausedPastTTL(t *testing.T) {
	ec := startEtcd(t, 3)
	fake := taskboardtest.New(taskboard.FlavorV2, nil)
	url := serveFake(t, fake)
	const ttl = 2 * time.Second
	a, b := startProc(t, ec, url, ttl, 0), startProc(t, ec, url, ttl, 0)
	if r := a.do(command{Op: "manage", Ref: "orch"}); r.Err != "" {
		t.Fatal(r.Err)
	}
	fake.Start("ses_p", "orch", "task")
	if r := a.do(command{Op: "launch", Ref: "ses_p"}); r.Err != "" {
		t.Fatalf("launch: %+v", r)
	}
	fake.Delay(taskboardtest.OpEnqueue, 8*time.Second)
	a.send(command{Op: "message", Ref: "exp-1", Text: "note"})
	for deadline := time.Now().Add(time.Minute); calls(fake, "enqueue") == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("A's write never reached the host")
		}
	}
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); alive(t, ec, a.inc); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("A's liveness key did not expire while A was stopped")
		}
	}
	if r := b.do(command{Op: "cancel", Ref: "exp-1", Text: "x"}); r.Kind != "ErrLeaseUnavailable" {
		t.Fatalf("cancel at B while A is stopped: %+v", r)
	}
	time.Sleep(6 * time.Second) // the fake host answers A's write; A is still stopped
	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if r := a.wait(time.Minute); r.Err != "" && r.Kind != "ErrTimeout" {
		t.Fatalf("message at A after SIGCONT: %+v", r)
	}
	var leases string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if leases = b.do(command{Op: "leases"}).Out; leases == "" || time.Now().After(deadline) {
			break
		}
	}
	if leases != "" {
		t.Fatalf("A's settlement did not release its lease: %s", leases)
	}
	if r := b.do(command{Op: "cancel", Ref: "exp-1", Text: "x"}); r.Err != "" {
		t.Fatalf("cancel at B after A settled: %+v", r)
	}
	if n := calls(fake, "enqueue"); n != 1 {
		t.Fatalf("%d writes, want 1", n)
	}
}
