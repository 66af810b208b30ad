package e2e

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/harnesskit/harnesskit/cluster"
	"github.com/harnesskit/harnesskit/taskboard"
	"github.com/harnesskit/harnesskit/taskboard/taskboardtest"
	clientv3 "go.etcd.io/etcd/client/v3"
)

var orch = taskboard.Caller{SessionID: "orch", Agent: "orchestrator"}

func TestStoreConformanceOnEtcd(t *testing.T) {
	ec := startEtcd(t, 3)
	if err := taskboardtest.TestStore(ctxT(t), cluster.NewStore(ec.client(t), "e2e/")); err != nil {
		t.Fatal(err)
	}
}

// host is one host process: its etcd client, its incarnation and its driver.
type host struct {
	cl *clientv3.Client
	m  *cluster.Member
	d  *taskboard.Driver
}

func startHosts(t testing.TB, ec *etcdCluster, fake *taskboardtest.Host, ttl time.Duration, o taskboard.Options) []*host {
	t.Helper()
	o.NoReconciliation = true
	var hs []*host
	for range 3 {
		cl := ec.client(t)
		m, err := cluster.Join(ctxT(t), cl, "board/", ttl)
		if err != nil {
			t.Fatal(err)
		}
		d, err := taskboard.NewSharedDriver(m.Store(), m.Incarnation(), fake.Host(), o)
		if err != nil {
			t.Fatal(err)
		}
		h := &host{cl: cl, m: m, d: d}
		t.Cleanup(func() { d.Close(); m.Close() })
		hs = append(hs, h)
	}
	if err := hs[0].d.Manage("orch"); err != nil {
		t.Fatal(err)
	}
	return hs
}

func launch(_ testing.TB, d *taskboard.Driver, fake *taskboardtest.Host, id string) (taskboard.TaskLaunchResult, error) {
	ctx := context.Background()
	plan, err := d.Task(ctx, orch, taskboard.TaskCall{Agent: "explorer", Description: "task " + id, Background: true})
	if err != nil {
		return taskboard.TaskLaunchResult{}, err
	}
	fake.Start(id, "orch", "task "+id)
	return d.FinishTask(plan, taskboard.LaunchObservation{TaskID: id, Background: true})
}

func count(fake *taskboardtest.Host, prefix string) int {
	n := 0
	for _, c := range fake.Calls() {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// TestThreeHostsOneBoard: launch at A, status at B; a cancel at B races a message at C:
// exactly one gets the lease and the host sees exactly one call.
func TestThreeHostsOneBoard(t *testing.T) {
	ec := startEtcd(t, 3)
	fake := taskboardtest.New(taskboard.FlavorV2, nil)
	hs := startHosts(t, ec, fake, 5*time.Second, taskboard.Options{})
	for round := range 3 {
		id := fmt.Sprintf("ses_%d", round)
		res, err := launch(t, hs[0].d, fake, id)
		if err != nil {
			t.Fatal(err)
		}
		st, err := hs[1].d.Status(context.Background(), orch, res.Alias)
		if err != nil || st.TaskID != id {
			t.Fatalf("status at B: %+v %v", st, err)
		}
		fake.Delay(taskboardtest.OpAbort, 300*time.Millisecond)
		fake.Delay(taskboardtest.OpEnqueue, 300*time.Millisecond)
		before := count(fake, "abort ") + count(fake, "enqueue ")
		var wg sync.WaitGroup
		var cerr, merr error
		wg.Add(2)
		go func() { defer wg.Done(); _, cerr = hs[1].d.Cancel(context.Background(), orch, res.Alias, "race") }()
		go func() { defer wg.Done(); _, merr = hs[2].d.Message(context.Background(), orch, res.Alias, "race") }()
		wg.Wait()
		won := 0
		for _, err := range []error{cerr, merr} {
			if err == nil {
				won++
			} else if !errors.Is(err, taskboard.ErrLeaseUnavailable) {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if after := count(fake, "abort ") + count(fake, "enqueue "); won != 1 || after-before != 1 {
			t.Fatalf("round %d: cancel %v message %v, host calls +%d", round, cerr, merr, after-before)
		}
	}
}

// TestKillHostMidCancel: A's abort never answers and A dies (its etcd client is cut, so
// its session expires after the TTL). The task stays excluded at B and C for more than
// 3×TTL, TakeOver is refused while A's liveness key lives and audited after, and no second
// abort is sent.
func TestKillHostMidCancel(t *testing.T) {
	ec := startEtcd(t, 3)
	fake := taskboardtest.New(taskboard.FlavorV2, nil)
	const ttl = 2 * time.Second
	hs := startHosts(t, ec, fake, ttl, taskboard.Options{Timing: taskboard.Timing{AbortTimeout: 500 * time.Millisecond}})
	res, err := launch(t, hs[0].d, fake, "ses_k")
	if err != nil {
		t.Fatal(err)
	}
	fake.Delay(taskboardtest.OpAbort, time.Hour)
	if _, err := hs[0].d.Cancel(context.Background(), orch, res.Alias, "stop"); !errors.Is(err, taskboard.ErrTimeout) {
		t.Fatalf("cancel at A: %v", err)
	}
	if _, err := hs[1].d.TakeOver("ses_k", "A looks stuck"); !errors.Is(err, taskboard.ErrLeaseHeld) {
		t.Fatalf("takeover while A lives: %v", err)
	}
	hs[0].cl.Close() // A is gone: no more keep-alives
	start := time.Now()
	for time.Since(start) < 3*ttl+time.Second {
		for _, h := range hs[1:] {
			if _, err := h.d.Cancel(context.Background(), orch, res.Alias, "again"); !errors.Is(err, taskboard.ErrLeaseUnavailable) {
				t.Fatalf("cancel at %s %s after A died: %v", h.m.Incarnation(), time.Since(start), err)
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	var l taskboard.Lease
	deadline := time.Now().Add(30 * time.Second)
	for {
		l, err = hs[1].d.TakeOver("ses_k", "A was killed mid-cancel")
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond) // A's session may take a little longer to expire
	}
	if err != nil || l.Kind != "cancellation" {
		t.Fatalf("takeover after A died: %+v %v", l, err)
	}
	var audit []taskboard.Lease
	hs[2].d.Do("orch", func(b *taskboard.Board) { audit = b.ForcedReleases() })
	if len(audit) != 1 || !strings.Contains(audit[0].Reason, "A was killed mid-cancel") {
		t.Fatalf("audit %+v", audit)
	}
	if n := count(fake, "abort "); n != 1 {
		t.Fatalf("%d aborts, want 1", n)
	}
}

// launchOp is one recorded launch for porcupine: a task launched under a parent (each
// parent is one shard, checked as one partition).
type launchOp struct{ parent, id string }
type launchOut struct {
	alias   string
	gen     uint64
	unknown bool // the call failed: it may or may not have registered
}

// modelState is the sequence of launches applied, replayed on an in-memory board.
type modelState []string

// replay runs the launches on a fresh one-process driver (the in-memory Board is the
// model) and returns the result of the last.
func replay(parent string, ids []string) (taskboard.TaskLaunchResult, error) {
	fake := taskboardtest.New(taskboard.FlavorV2, nil)
	d, err := taskboard.NewDriver(fake.Host(), taskboard.Options{NoReconciliation: true})
	if err != nil {
		return taskboard.TaskLaunchResult{}, err
	}
	defer d.Close()
	d.Manage(parent)
	me := taskboard.Caller{SessionID: parent, Agent: "orchestrator"}
	var last taskboard.TaskLaunchResult
	for _, id := range ids {
		plan, err := d.Task(context.Background(), me, taskboard.TaskCall{Agent: "explorer", Description: "task " + id, Background: true})
		if err != nil {
			return last, err
		}
		last, err = d.FinishTask(plan, taskboard.LaunchObservation{TaskID: id, Background: true})
		if err != nil {
			return last, err
		}
	}
	return last, nil
}

var boardModel = porcupine.NondeterministicModel{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		by := map[string][]porcupine.Operation{}
		var parents []string
		for _, op := range h {
			p := op.Input.(launchOp).parent
			if by[p] == nil {
				parents = append(parents, p)
			}
			by[p] = append(by[p], op)
		}
		sort.Strings(parents)
		var out [][]porcupine.Operation
		for _, p := range parents {
			out = append(out, by[p])
		}
		return out
	},
	Init: func() []any { return []any{modelState(nil)} },
	Step: func(state, in, out any) []any {
		s := state.(modelState)
		op, o := in.(launchOp), out.(launchOut)
		next := append(append(modelState(nil), s...), op.id)
		if o.unknown {
			return []any{s, next} // it may or may not have happened
		}
		got, err := replay(op.parent, next)
		if err != nil || got.Alias != o.alias {
			return nil
		}
		return []any{next}
	},
	Equal: func(a, b any) bool {
		x, y := a.(modelState), b.(modelState)
		return strings.Join(x, ",") == strings.Join(y, ",")
	},
	DescribeOperation: func(in, out any) string {
		o := out.(launchOut)
		return fmt.Sprintf("launch(%s/%s) -> %s unknown=%t", in.(launchOp).parent, in.(launchOp).id, o.alias, o.unknown)
	},
}

// TestKillEtcdLeaderUnderTraffic: three hosts launch tasks on one parent and complete them
// while the etcd leader is killed. Every launch that succeeded is on the board, each
// finished task notified its parent at most once, and porcupine finds the history of
// launches linearizable with the in-memory Board as the model.
func TestKillEtcdLeaderUnderTraffic(t *testing.T) {
	ec := startEtcd(t, 3)
	fake := taskboardtest.New(taskboard.FlavorV2, nil)
	hs := startHosts(t, ec, fake, 5*time.Second, taskboard.Options{NotifyAll: true, Timing: taskboard.Timing{IdleDelay: 10 * time.Millisecond}})
	if err := hs[1].d.Manage("orch2"); err != nil {
		t.Fatal(err)
	}
	const perHost = 8
	var mu sync.Mutex
	var ops []porcupine.Operation
	var wg sync.WaitGroup
	t0 := time.Now()
	for hi, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perHost {
				id := fmt.Sprintf("ses_h%d_%d", hi, i)
				parent := []string{"orch", "orch2"}[i%2]
				call := time.Since(t0).Nanoseconds()
				res, err := launchUnder(h.d, fake, parent, id)
				ret := time.Since(t0).Nanoseconds()
				out := launchOut{alias: res.Alias, gen: 0}
				if err != nil {
					out.unknown = true
					ret = 1 << 62
				}
				mu.Lock()
				ops = append(ops, porcupine.Operation{ClientId: hi, Input: launchOp{parent, id}, Output: out, Call: call, Return: ret})
				mu.Unlock()
				if err == nil {
					h.d.Observe(fake.Finish(id, "done "+id))
					if i%2 == 0 { // revive half of them once finished: one more launch each
						revive(h.d, parent, id)
					}
				}
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	killed := ec.killLeader(t)
	wg.Wait()
	t.Logf("killed member %d under traffic; %d launches", killed, len(ops))
	time.Sleep(3 * time.Second) // completions and notifications settle
	var recs []taskboard.Record
	for _, parent := range []string{"orch", "orch2"} {
		if err := hs[(killed+1)%3].d.Do(parent, func(b *taskboard.Board) { recs = append(recs, b.Records(parent)...) }); err != nil {
			t.Fatal(err)
		}
	}
	have := map[string]taskboard.Record{}
	aliases := map[string]bool{}
	for _, r := range recs {
		have[r.TaskID] = r
		if aliases[r.ParentID+"/"+r.Alias] {
			t.Fatalf("alias %s given twice", r.Alias)
		}
		aliases[r.ParentID+"/"+r.Alias] = true
	}
	for _, op := range ops {
		if o := op.Output.(launchOut); !o.unknown {
			if r, ok := have[op.Input.(launchOp).id]; !ok || r.Alias != o.alias {
				t.Fatalf("launch %v -> %v lost: %+v", op.Input, o, r)
			}
		}
	}
	notified := map[string]int{}
	for _, p := range append(fake.Prompts("orch"), fake.Prompts("orch2")...) {
		for id := range have {
			if strings.Contains(p.Text, "("+id+")") {
				notified[id]++
			}
		}
	}
	for id, n := range notified {
		if n > 1 {
			t.Fatalf("%s notified %d times", id, n)
		}
	}
	revived := 0
	for id, r := range have {
		if r.TaskGeneration == 2 {
			revived++
		}
		if n := len(fake.Prompts(id)); n > 1 || r.TaskGeneration > 2 || uint64(n) != r.TaskGeneration-1 {
			t.Fatalf("%s: %d revive prompts for task generation %d (at most one launch per task and generation)", id, n, r.TaskGeneration)
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
	res, _ := porcupine.CheckOperationsVerbose(boardModel.ToModel(), ops, 60*time.Second)
	if res != porcupine.Ok {
		t.Fatalf("porcupine: %s over %d launches", res, len(ops))
	}
	unknown := 0
	for _, op := range ops {
		if op.Output.(launchOut).unknown {
			unknown++
		}
	}
	t.Logf("porcupine: %s over %d launches on 2 shards (%d with an unknown outcome); %d records, %d revived once, %d parent notifications", res, len(ops), unknown, len(recs), revived, len(fake.Prompts("orch"))+len(fake.Prompts("orch2")))
	if revived == 0 {
		t.Fatal("no revive went through: the launch-per-generation check checked nothing")
	}
}

func startHostsB(b *testing.B, ec *etcdCluster, fake *taskboardtest.Host) []*host {
	return startHosts(b, ec, fake, 5*time.Second, taskboard.Options{})
}

func launchB(d *taskboard.Driver, fake *taskboardtest.Host, id string) (taskboard.TaskLaunchResult, error) {
	return launch(nil, d, fake, id)
}

// TestDeletionWinsAcrossHosts: a revive at A sends its prompt and the admission is still
// pending when B receives the session's genuine deletion. When the host then accepts the
// prompt, the record is not recreated anywhere and exactly one compensation abort is sent.
func TestDeletionWinsAcrossHosts(t *testing.T) {
	ec := startEtcd(t, 3)
	fake := taskboardtest.New(taskboard.FlavorV2, nil)
	hs := startHosts(t, ec, fake, 5*time.Second, taskboard.Options{Timing: taskboard.Timing{IdleDelay: 10 * time.Millisecond, AdmissionTimeout: 300 * time.Millisecond}})
	res, err := launch(t, hs[0].d, fake, "ses_del")
	if err != nil {
		t.Fatal(err)
	}
	hs[1].d.Observe(fake.Finish("ses_del", "first answer"))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var r taskboard.Record
		hs[2].d.Do("orch", func(b *taskboard.Board) { r, _ = b.Get("ses_del") })
		if r.State == taskboard.StateCompleted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never completed: %+v", r)
		}
	}
	fake.Delay(taskboardtest.OpPrompt, 2*time.Second)
	rv, err := hs[0].d.Revive(context.Background(), orch, res.Alias, "continue")
	if err != nil || rv.Status != "admission_unknown" {
		t.Fatalf("revive at A: %+v %v", rv, err)
	}
	hs[1].d.Observe(taskboard.HostEvent{Kind: taskboard.EventDeleted, SessionID: "ses_del"})
	time.Sleep(5 * time.Second) // the prompt is accepted; compensation runs at A
	for _, h := range hs {
		var ok bool
		var tomb bool
		h.d.Do("orch", func(b *taskboard.Board) { _, ok = b.Get("ses_del"); tomb = len(b.Records("orch")) == 0 })
		if ok || !tomb {
			t.Fatalf("the deleted record came back at %s", h.m.Incarnation())
		}
	}
	if n := count(fake, "abort "); n != 1 {
		t.Fatalf("%d compensation aborts, want 1: %v", n, fake.Calls())
	}
	var leases []taskboard.Lease
	hs[2].d.Do("orch", func(b *taskboard.Board) { leases = b.LiveLeases() })
	if len(leases) != 0 {
		t.Fatalf("compensation left %v (the abort was confirmed and the session idle)", leases)
	}
}

func launchUnder(d *taskboard.Driver, fake *taskboardtest.Host, parent, id string) (taskboard.TaskLaunchResult, error) {
	me := taskboard.Caller{SessionID: parent, Agent: "orchestrator"}
	plan, err := d.Task(context.Background(), me, taskboard.TaskCall{Agent: "explorer", Description: "task " + id, Background: true})
	if err != nil {
		return taskboard.TaskLaunchResult{}, err
	}
	fake.Start(id, parent, "task "+id)
	return d.FinishTask(plan, taskboard.LaunchObservation{TaskID: id, Background: true})
}

// TestBoardModelRejectsWrongHistories: the porcupine model can fail. Two launches one after
// the other that both got alias exp-1 are not linearizable; the same two, concurrent and
// answered exp-2 then exp-1, are.
func TestBoardModelRejectsWrongHistories(t *testing.T) {
	op := func(id, alias string, call, ret int64) porcupine.Operation {
		return porcupine.Operation{Input: launchOp{"orch", id}, Output: launchOut{alias: alias}, Call: call, Return: ret}
	}
	m := boardModel.ToModel()
	if porcupine.CheckOperations(m, []porcupine.Operation{op("ses_a", "exp-1", 0, 10), op("ses_b", "exp-1", 20, 30)}) {
		t.Fatal("a repeated alias was accepted")
	}
	if porcupine.CheckOperations(m, []porcupine.Operation{op("ses_a", "exp-1", 0, 10), op("ses_b", "exp-3", 20, 30)}) {
		t.Fatal("a skipped alias was accepted")
	}
	if !porcupine.CheckOperations(m, []porcupine.Operation{op("ses_a", "exp-2", 0, 30), op("ses_b", "exp-1", 10, 20)}) {
		t.Fatal("a concurrent history was rejected")
	}
}

// revive waits until the task completed and revives it once (errors are the test's
// business only through the counts it checks afterwards).
func revive(d *taskboard.Driver, parent, id string) {
	me := taskboard.Caller{SessionID: parent, Agent: "orchestrator"}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var r taskboard.Record
		d.Do(parent, func(b *taskboard.Board) { r, _ = b.Get(id) })
		if r.State == taskboard.StateCompleted {
			// The parent's notification holds the task's lease while it is sent.
			if _, err := d.Revive(context.Background(), me, id, "and the tests"); !errors.Is(err, taskboard.ErrLeaseUnavailable) {
				return
			}
		}
	}
}
