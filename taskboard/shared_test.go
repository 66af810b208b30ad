package taskboard_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harnesskit/harnesskit/taskboard"
	"github.com/harnesskit/harnesskit/taskboard/store"
	"github.com/harnesskit/harnesskit/taskboard/taskboardtest"
)

var orch = taskboard.Caller{SessionID: "orch", Agent: "orchestrator"}

// cluster is three shared drivers (three host processes) over one store and one host.
type cluster struct {
	st   *taskboardtest.Store
	host *taskboardtest.Host
	d    map[string]*taskboard.Driver
}

func newCluster(t *testing.T, o taskboard.Options, wrap func(inc string, st *taskboardtest.Store) store.Store) *cluster {
	t.Helper()
	c := &cluster{st: taskboardtest.NewStore(), host: taskboardtest.New(taskboard.FlavorV2, nil), d: map[string]*taskboard.Driver{}}
	o.NoReconciliation = true
	for _, inc := range []string{"a", "b", "c"} {
		c.st.Live(inc)
		var st store.Store = c.st
		if wrap != nil {
			st = wrap(inc, c.st)
		}
		d, err := taskboard.NewSharedDriver(st, inc, c.host.Host(), o)
		if err != nil {
			t.Fatal(err)
		}
		c.d[inc] = d
		t.Cleanup(func() { d.Close() })
	}
	if err := c.d["a"].Manage("orch"); err != nil {
		t.Fatal(err)
	}
	return c
}

// launch starts ses_1 through driver a.
func (c *cluster) launch(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	plan, err := c.d["a"].Task(ctx, orch, taskboard.TaskCall{Agent: "explorer", Description: "find it", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	c.host.Start("ses_1", "orch", "find it")
	res, err := c.d["a"].FinishTask(plan, taskboard.LaunchObservation{TaskID: "ses_1", Background: true})
	if err != nil || res.Alias != "exp-1" {
		t.Fatalf("launch: %+v %v", res, err)
	}
}

func (c *cluster) lease(t *testing.T, at string) (taskboard.Lease, bool) {
	t.Helper()
	var l taskboard.Lease
	var ok bool
	if err := c.d[at].Do("orch", func(b *taskboard.Board) { l, ok = b.LiveLease("ses_1") }); err != nil {
		t.Fatal(err)
	}
	return l, ok
}

func (c *cluster) calls(op string) int {
	n := 0
	for _, call := range c.host.Calls() {
		if strings.HasPrefix(call, op+" ") {
			n++
		}
	}
	return n
}

// TestSharedLaunchOnOneStatusOnAnother: a task launched through one process is seen,
// messaged and cancelled through the others.
func TestSharedLaunchOnOneStatusOnAnother(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, taskboard.Options{}, nil)
		c.launch(t)
		ctx := context.Background()
		st, err := c.d["b"].Status(ctx, orch, "exp-1")
		if err != nil || st.TaskID != "ses_1" {
			t.Fatalf("status at b: %+v %v", st, err)
		}
		if _, err := c.d["c"].Message(ctx, orch, "exp-1", "add tests"); err != nil {
			t.Fatal(err)
		}
		res, err := c.d["b"].Cancel(ctx, orch, "exp-1", "obsolete")
		if err != nil || res.State != string(taskboard.StateCancelled) {
			t.Fatalf("cancel at b: %+v %v", res, err)
		}
		if r := record(t, c.d["c"], "ses_1"); r.State != taskboard.StateCancelled {
			t.Fatalf("at c: %s", r.State)
		}
		if c.calls("enqueue") != 1 || c.calls("abort") != 1 {
			t.Fatalf("host calls %v", c.host.Calls())
		}
	})
}

// TestSharedCancelRacesMessage: a cancel at b and a message at c start together; exactly
// one gets the lease, the other is refused with ErrLeaseUnavailable, and the host sees
// exactly one call.
func TestSharedCancelRacesMessage(t *testing.T) {
	for round := range 8 {
		synctest.Test(t, func(t *testing.T) {
			c := newCluster(t, taskboard.Options{}, nil)
			c.launch(t)
			c.host.Delay(taskboardtest.OpAbort, time.Second)
			c.host.Delay(taskboardtest.OpEnqueue, time.Second)
			ctx := context.Background()
			var wg sync.WaitGroup
			var cerr, merr error
			wg.Add(2)
			go func() { defer wg.Done(); _, cerr = c.d["b"].Cancel(ctx, orch, "exp-1", "race") }()
			go func() { defer wg.Done(); _, merr = c.d["c"].Message(ctx, orch, "exp-1", "race") }()
			wg.Wait()
			won := 0
			for _, err := range []error{cerr, merr} {
				switch {
				case err == nil:
					won++
				case !errors.Is(err, taskboard.ErrLeaseUnavailable):
					t.Fatalf("round %d: unexpected error %v", round, err)
				}
			}
			if won != 1 || c.calls("abort")+c.calls("enqueue") != 1 {
				t.Fatalf("round %d: cancel %v, message %v, host %v", round, cerr, merr, c.host.Calls())
			}
		})
	}
}

// TestSharedDeadHolderKeepsExclusion: a's abort never settles and a dies (its liveness
// key goes). The task stays excluded at b and c, TakeOver is refused while a lived and
// audited after, no second abort is sent, and a's late settlement (a paused process that
// resumes) changes nothing.
func TestSharedDeadHolderKeepsExclusion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, taskboard.Options{Timing: taskboard.Timing{HostCallDeadline: -1}}, nil)
		c.launch(t)
		c.host.Delay(taskboardtest.OpAbort, time.Hour)
		ctx := context.Background()
		_, err := c.d["a"].Cancel(ctx, orch, "exp-1", "stop")
		if !errors.Is(err, taskboard.ErrTimeout) {
			t.Fatalf("cancel at a: %v", err)
		}
		if _, err := c.d["b"].TakeOver("ses_1", "a looks stuck"); !errors.Is(err, taskboard.ErrLeaseHeld) {
			t.Fatalf("takeover while a lives: %v", err)
		}
		c.st.Kill("a")
		time.Sleep(time.Minute) // well past any liveness TTL
		for _, at := range []string{"b", "c"} {
			if _, err := c.d[at].Cancel(ctx, orch, "exp-1", "again"); !errors.Is(err, taskboard.ErrLeaseUnavailable) {
				t.Fatalf("cancel at %s after a died: %v", at, err)
			}
			if l, ok := c.lease(t, at); !ok || l.Kind != "cancellation" {
				t.Fatalf("lease at %s: %+v %t", at, l, ok)
			}
		}
		l, err := c.d["b"].TakeOver("ses_1", "a died mid-cancel; ticket 7")
		if err != nil || l.Kind != "cancellation" {
			t.Fatalf("takeover after a died: %+v %v", l, err)
		}
		var audit []taskboard.Lease
		c.d["c"].Do("orch", func(b *taskboard.Board) { audit = b.ForcedReleases() })
		if len(audit) != 1 || !strings.Contains(audit[0].Reason, "taken over by b from dead holder a: a died mid-cancel; ticket 7") {
			t.Fatalf("audit %+v", audit)
		}
		if _, ok := c.lease(t, "c"); ok {
			t.Fatal("lease still live after the takeover")
		}
		time.Sleep(2 * time.Hour) // a's abort finally returns: its token is stale
		synctest.Wait()
		if _, ok := c.lease(t, "b"); ok {
			t.Fatal("a's late settlement left a lease")
		}
		if r := record(t, c.d["b"], "ses_1"); r.State != taskboard.StateRunning || c.calls("abort") != 1 {
			t.Fatalf("after a's late settlement: %s, host %v", r.State, c.host.Calls())
		}
	})
}

// TestSharedPausedHolderSettlesItsOwnLease: a's message write is in flight when a's
// liveness key expires (a paused process); the lease stays (the write may land), and when
// the write settles a releases its own token.
func TestSharedPausedHolderSettlesItsOwnLease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, taskboard.Options{}, nil)
		c.launch(t)
		c.host.Delay(taskboardtest.OpEnqueue, 30*time.Second)
		ctx := context.Background()
		done := make(chan error, 1)
		go func() { _, err := c.d["a"].Message(ctx, orch, "exp-1", "note"); done <- err }()
		time.Sleep(time.Second)
		synctest.Wait()
		c.st.Kill("a")
		if _, err := c.d["b"].Cancel(ctx, orch, "exp-1", "x"); !errors.Is(err, taskboard.ErrLeaseUnavailable) {
			t.Fatalf("cancel at b while a's write is in flight: %v", err)
		}
		if err := <-done; !errors.Is(err, taskboard.ErrTimeout) {
			t.Fatalf("message at a: %v", err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if _, ok := c.lease(t, "b"); ok {
			t.Fatal("a's settlement did not release its lease")
		}
		if _, err := c.d["b"].Cancel(ctx, orch, "exp-1", "x"); err != nil {
			t.Fatalf("cancel at b after a settled: %v", err)
		}
	})
}

// gate blocks the nth Update through it until released.
type gate struct {
	store.Store
	mu      sync.Mutex
	n, seen int
	hold    chan struct{}
	held    chan struct{}
}

func (g *gate) Update(ctx context.Context, keys []string, f func(map[string][]byte) (map[string][]byte, error)) error {
	g.mu.Lock()
	g.seen++
	block := g.seen == g.n
	g.mu.Unlock()
	if block {
		close(g.held)
		<-g.hold
	}
	return g.Store.Update(ctx, keys, f)
}

// TestSharedUndispatchedLeaseOfDeadHolderIsReleased: a takes the cancellation lease and
// dies before dispatching its abort; b's next step releases the lease (audited), and a's
// resumed dispatch is withdrawn: no abort is sent.
func TestSharedUndispatchedLeaseOfDeadHolderIsReleased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &gate{hold: make(chan struct{}), held: make(chan struct{})}
		c := newCluster(t, taskboard.Options{}, func(inc string, st *taskboardtest.Store) store.Store {
			if inc != "a" {
				return st
			}
			g.Store = st
			return g
		})
		c.launch(t)
		g.mu.Lock()
		g.n = g.seen + 2 // a's cancel: the start step passes, the dispatch step waits
		g.mu.Unlock()
		ctx := context.Background()
		done := make(chan error, 1)
		go func() { _, err := c.d["a"].Cancel(ctx, orch, "exp-1", "x"); done <- err }()
		<-g.held
		c.st.Kill("a")
		if l, ok := c.lease(t, "b"); ok {
			t.Fatalf("b's step kept the undispatched lease of dead a: %+v", l)
		}
		var audit []taskboard.Lease
		c.d["b"].Do("orch", func(b *taskboard.Board) { audit = b.ForcedReleases() })
		if len(audit) != 1 || !strings.Contains(audit[0].Reason, "released automatically: holder a is gone") {
			t.Fatalf("audit %+v", audit)
		}
		close(g.hold)
		if err := <-done; !errors.Is(err, taskboard.ErrStale) {
			t.Fatalf("a's cancel after its lease was released: %v", err)
		}
		if c.calls("abort") != 0 {
			t.Fatalf("an abort was sent: %v", c.host.Calls())
		}
	})
}

// TestSharedUncertainCommits: a commit the store cannot confirm is read back: one that
// landed is not applied twice, one that did not is run again, and the host is called once.
func TestSharedUncertainCommits(t *testing.T) {
	for _, landed := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			c := newCluster(t, taskboard.Options{}, nil)
			c.st.Uncertain(landed) // the registration's commit
			c.launch(t)
			var recs []taskboard.Record
			c.d["b"].Do("orch", func(b *taskboard.Board) { recs = b.Records("orch") })
			if len(recs) != 1 || recs[0].Alias != "exp-1" || recs[0].Generation != 1 {
				t.Fatalf("landed=%t: records %+v", landed, recs)
			}
			c.st.Uncertain(landed) // the message's lease
			c.st.Uncertain(landed) // its dispatch
			c.st.Uncertain(landed) // its settlement
			if _, err := c.d["c"].Message(context.Background(), orch, "exp-1", "note"); err != nil {
				t.Fatalf("landed=%t: message %v", landed, err)
			}
			if _, ok := c.lease(t, "a"); ok || c.calls("enqueue") != 1 {
				t.Fatalf("landed=%t: lease left or host calls %v", landed, c.host.Calls())
			}
		})
	}
}

// flaky fails every call while down (a partition from the store).
type flaky struct {
	store.Store
	mu   sync.Mutex
	down bool
}

var errPartition = errors.New("store unreachable")

func (f *flaky) isDown() bool  { f.mu.Lock(); defer f.mu.Unlock(); return f.down }
func (f *flaky) set(down bool) { f.mu.Lock(); f.down = down; f.mu.Unlock() }

func (f *flaky) Update(ctx context.Context, keys []string, fn func(map[string][]byte) (map[string][]byte, error)) error {
	if f.isDown() {
		return errPartition
	}
	return f.Store.Update(ctx, keys, fn)
}

func (f *flaky) Get(ctx context.Context, keys ...string) (map[string][]byte, error) {
	if f.isDown() {
		return nil, errPartition
	}
	return f.Store.Get(ctx, keys...)
}

// TestSharedPartitionedFromTheStore: while b cannot reach the store its tool calls fail
// within their deadline (nothing changed, ErrHost) instead of hanging, a host event it
// receives is applied once the store is back, and the other processes go on meanwhile.
func TestSharedPartitionedFromTheStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &flaky{}
		c := newCluster(t, taskboard.Options{}, func(inc string, st *taskboardtest.Store) store.Store {
			if inc != "b" {
				return st
			}
			f.Store = st
			return f
		})
		c.launch(t)
		f.set(true)
		go c.d["b"].Observe(c.host.Finish("ses_1", "the answer")) // retried until the store is back
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if _, err := c.d["b"].Status(ctx, orch, "exp-1"); !errors.Is(err, taskboard.ErrHost) {
			t.Fatalf("status at b while partitioned: %v", err)
		}
		if _, err := c.d["c"].Status(context.Background(), orch, "exp-1"); err != nil {
			t.Fatalf("status at c while b is partitioned: %v", err)
		}
		f.set(false)
		time.Sleep(time.Minute)
		synctest.Wait()
		if r := record(t, c.d["a"], "ses_1"); r.State != taskboard.StateCompleted || r.ResultSummary != "the answer" {
			t.Fatalf("b's event after the partition healed: %s %q", r.State, r.ResultSummary)
		}
	})
}

// TestSharedConflictsNeverRepeatHostCalls: three processes message and cancel three tasks
// at once, so steps conflict and run again; every host call still matches exactly one
// answered operation (a re-run step never calls the host twice), and each task is
// aborted at most once.
func TestSharedConflictsNeverRepeatHostCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, taskboard.Options{}, nil)
		ctx := context.Background()
		ids := []string{"ses_1", "ses_2", "ses_3"}
		for _, id := range ids {
			plan, err := c.d["a"].Task(ctx, orch, taskboard.TaskCall{Agent: "explorer", Description: id, Background: true})
			if err != nil {
				t.Fatal(err)
			}
			c.host.Start(id, "orch", id)
			if _, err := c.d["a"].FinishTask(plan, taskboard.LaunchObservation{TaskID: id, Background: true}); err != nil {
				t.Fatal(err)
			}
		}
		runs0, commits0 := c.st.Counts()
		var mu sync.Mutex
		messages, cancels := 0, 0
		var wg sync.WaitGroup
		for _, inc := range []string{"a", "b", "c"} {
			for w := range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 12 {
						id := ids[(w+i)%len(ids)]
						var err error
						if i%4 == 3 {
							if _, err = c.d[inc].Cancel(ctx, orch, id, "x"); err == nil {
								mu.Lock()
								cancels++
								mu.Unlock()
							}
						} else if _, err = c.d[inc].Message(ctx, orch, id, "m"); err == nil {
							mu.Lock()
							messages++
							mu.Unlock()
						}
						if err != nil && !errors.Is(err, taskboard.ErrLeaseUnavailable) && !errors.Is(err, taskboard.ErrNotRunning) {
							t.Errorf("%s: %v", inc, err)
						}
					}
				}()
			}
		}
		wg.Wait()
		runs, commits := c.st.Counts()
		if c.calls("enqueue") != messages || c.calls("abort") != cancels || cancels > len(ids) {
			t.Fatalf("%d messages and %d cancels answered, host saw %d writes and %d aborts", messages, cancels, c.calls("enqueue"), c.calls("abort"))
		}
		if runs-runs0 <= commits-commits0 {
			t.Fatalf("no step ran twice (%d runs, %d commits): no conflict and no read-only step: the test exercised nothing", runs-runs0, commits-commits0)
		}
		t.Logf("%d messages, %d cancels; %d step runs for %d commits", messages, cancels, runs-runs0, commits-commits0)
	})
}

// TestSharedReplayedAfterHook: the after-hook of one launch reported twice, by two
// processes (a duplicate delivery), is one run: one record, generation 1, one alias.
func TestSharedReplayedAfterHook(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, taskboard.Options{}, nil)
		ctx := context.Background()
		plan, err := c.d["a"].Task(ctx, orch, taskboard.TaskCall{Agent: "explorer", Description: "x", Background: true})
		if err != nil {
			t.Fatal(err)
		}
		c.host.Start("ses_1", "orch", "x")
		r1, err1 := c.d["a"].FinishTask(plan, taskboard.LaunchObservation{TaskID: "ses_1", Background: true})
		r2, err2 := c.d["b"].FinishTask(plan, taskboard.LaunchObservation{TaskID: "ses_1", Background: true})
		if err1 != nil || err2 != nil || r1.Alias != "exp-1" || r2.Alias != "exp-1" {
			t.Fatalf("a: %+v %v; b: %+v %v", r1, err1, r2, err2)
		}
		var recs []taskboard.Record
		c.d["c"].Do("orch", func(b *taskboard.Board) { recs = b.Records("orch") })
		if len(recs) != 1 || recs[0].Generation != 1 || recs[0].TaskGeneration != 1 {
			t.Fatalf("records %+v", recs)
		}
	})
}
