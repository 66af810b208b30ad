package taskboard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// fakeHost is a scriptable host for driver tests. Each method records the call and runs its
// hook; a nil hook answers at once with a benign value. Hooks may block on a channel and must
// return when ctx is cancelled.
type fakeHost struct {
	mu       sync.Mutex
	calls    []string
	abort    func(ctx context.Context, id string) (bool, error)
	statuses func(ctx context.Context) (map[string]LiveStatus, error)
	session  func(ctx context.Context, id string) (SessionInfo, error)
	messages func(ctx context.Context, id string, limit int) ([]TranscriptEntry, error)
	enqueue  func(ctx context.Context, id string, m Message) error
	prompt   func(ctx context.Context, id string, p Message) error
	idle     func(ctx context.Context, id string) error
}

func (h *fakeHost) note(s string) {
	h.mu.Lock()
	h.calls = append(h.calls, s)
	h.mu.Unlock()
}

func (h *fakeHost) count(prefix string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

func (h *fakeHost) Abort(ctx context.Context, id string) (bool, error) {
	h.note("abort " + id)
	if h.abort != nil {
		return h.abort(ctx, id)
	}
	return true, nil
}
func (h *fakeHost) Statuses(ctx context.Context) (map[string]LiveStatus, error) {
	h.note("status")
	if h.statuses != nil {
		return h.statuses(ctx)
	}
	return map[string]LiveStatus{}, nil
}
func (h *fakeHost) Session(ctx context.Context, id string) (SessionInfo, error) {
	h.note("session " + id)
	if h.session != nil {
		return h.session(ctx, id)
	}
	return SessionInfo{ParentID: parent1, IdleAt: time.Now()}, nil
}
func (h *fakeHost) Messages(ctx context.Context, id string, limit int) ([]TranscriptEntry, error) {
	h.note("messages " + id)
	if h.messages != nil {
		return h.messages(ctx, id, limit)
	}
	return []TranscriptEntry{{ID: "m1", Role: "assistant", Provider: "p", Model: "m", Finished: true, Text: "answer"}}, nil
}
func (h *fakeHost) Enqueue(ctx context.Context, id string, m Message) error {
	h.note("enqueue " + id)
	if h.enqueue != nil {
		return h.enqueue(ctx, id, m)
	}
	return nil
}
func (h *fakeHost) PromptAsync(ctx context.Context, id string, p Message) error {
	h.note("prompt " + id)
	if h.prompt != nil {
		return h.prompt(ctx, id, p)
	}
	return nil
}
func (h *fakeHost) WaitIdle(ctx context.Context, id string) error {
	h.note("idle " + id)
	if h.idle != nil {
		return h.idle(ctx, id)
	}
	return nil
}

var (
	_ Aborter       = (*fakeHost)(nil)
	_ Prompter      = (*fakeHost)(nil)
	_ SessionReader = (*fakeHost)(nil)
	_ StatusMap     = (*fakeHost)(nil)
	_ IdleWaiter    = (*fakeHost)(nil)
)

// blockUntil waits for ch or the call's context.
func blockUntil(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type drv struct {
	t *testing.T
	d *Driver
	h *fakeHost
}

// newDrv builds a driver on the system clock (fake inside a synctest bubble).
func newDrv(t *testing.T, v1host bool, opts ...func(*Options)) *drv {
	t.Helper()
	return newDrvWith(t, v1host, Options{}, opts...)
}

// newDrvWith is newDrv with board options.
func newDrvWith(t *testing.T, v1host bool, o Options, opts ...func(*Options)) *drv {
	t.Helper()
	o.NoReconciliation = true
	for _, f := range opts {
		f(&o)
	}
	b, err := NewBoard(o)
	if err != nil {
		t.Fatal(err)
	}
	b.manage(parent1)
	b.manage(parent2)
	h := &fakeHost{}
	host := Host{Aborter: h, Prompter: h, Sessions: h, Flavor: FlavorV2}
	if v1host {
		host.Status, host.Flavor = h, FlavorV1
	} else {
		host.Idle = h
	}
	d, err := newDriverOn(b, host)
	if err != nil {
		t.Fatal(err)
	}
	return &drv{t: t, d: d, h: h}
}

func (x *drv) launch(id, parent string) {
	x.t.Helper()
	x.d.Do("", func(b *Board) {
		if _, err := b.registerLaunch(launchInput{TaskID: id, ParentID: parent, Agent: "explorer"}); err != nil {
			x.t.Fatal(err)
		}
	})
}

func (x *drv) rec(id string) (r Record) {
	x.d.Do("", func(b *Board) { r, _ = b.Get(id) })
	return r
}

func (x *drv) lease(id string) (l leaseGrant, ok bool) {
	x.d.Do("", func(b *Board) { l, ok = b.LeaseForTest(id) })
	return l, ok
}

func TestDriverScenarios(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{name: "E130_caller_context_cancelled_machine_finishes", run: func(t *testing.T) {
			x := newDrv(t, true)
			gate := make(chan struct{})
			x.h.statuses = func(ctx context.Context) (map[string]LiveStatus, error) {
				if err := blockUntil(ctx, gate); err != nil {
					return nil, err
				}
				return idle("ses_a"), nil
			}
			x.launch("ses_a", parent1)
			ctx, cancel := context.WithCancel(context.Background())
			var err error
			var wg sync.WaitGroup
			wg.Go(func() { _, err = x.d.Cancel(ctx, orch, "ses_a", "") })
			synctest.Wait()
			cancel()
			wg.Wait()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v", err)
			}
			close(gate)
			time.Sleep(2 * time.Second)
			synctest.Wait()
			if x.rec("ses_a").State != StateCancelled {
				t.Fatalf("state %s", x.rec("ses_a").State)
			}
			if _, ok := x.lease("ses_a"); ok {
				t.Fatal("lease still live")
			}
			if x.d.pending() != 0 {
				t.Fatalf("%d machines pending", x.d.pending())
			}
			x.d.Close()
		}},
		{name: "E131_close_with_abort_pending", run: func(t *testing.T) {
			x := newDrv(t, true)
			var settled bool
			x.h.abort = func(ctx context.Context, id string) (bool, error) {
				<-ctx.Done()
				settled = true
				return true, nil
			}
			x.launch("ses_a", parent1)
			var err error
			var wg sync.WaitGroup
			wg.Go(func() { _, err = x.d.Cancel(context.Background(), orch, "ses_a", "") })
			synctest.Wait()
			x.d.Close()
			wg.Wait()
			checkErr(t, err, ErrClosed, "")
			if !settled {
				t.Fatal("the abort's context was not cancelled")
			}
			if l, ok := x.d.b.LeaseForTest("ses_a"); !ok || l.Kind != leaseCancellation {
				t.Fatal("lease not kept")
			}
			if !x.d.b.isDisposed() {
				t.Fatal("not disposed")
			}
			_, err = x.d.Message(context.Background(), orch, "ses_a", "x")
			checkErr(t, err, ErrClosed, "")
			// Every later Dispatch is withdrawn: a machine run by hand on the disposed board.
			r := &rig{t: t, b: x.d.b}
			x.d.b.release(mustLease(t, x.d.b, "ses_a"))
			m := r.start(newMessage(orch, messageArgs{Ref: "ses_a", Text: "x"}, v2))
			m.dispatch()
			if len(m.withdrawn) != 1 {
				t.Fatal("dispatch after Close not withdrawn")
			}
			if x.h.count("enqueue") != 0 {
				t.Fatal("call performed after Close")
			}
		}},
		{name: "E132_cancel_and_message_interleaved", run: func(t *testing.T) {
			x := newDrv(t, true)
			x.launch("ses_a", parent1)
			x.launch("ses_b", parent1)
			var cres CancelResult
			var mres MessageResult
			var cerr, merr error
			var wg sync.WaitGroup
			wg.Go(func() { cres, cerr = x.d.Cancel(context.Background(), orch, "ses_a", "") })
			wg.Go(func() {
				mres, merr = x.d.Message(context.Background(), orch, "ses_b", "hello")
			})
			wg.Wait()
			if cerr != nil || merr != nil || cres.State != string(StateCancelled) || mres.Status != "queued" {
				t.Fatalf("cancel %+v %v; message %+v %v", cres, cerr, mres, merr)
			}
			if x.rec("ses_b").State != StateRunning {
				t.Fatal("message changed ses_b")
			}
			x.d.Close()
		}},
		{name: "E35_subscriber_error_logged_others_run", run: func(t *testing.T) {
			logs := &captureHandler{}
			x := newDrv(t, true, func(o *Options) { o.Logger = slog.New(logs) })
			var second int
			x.d.OnTerminal(func(Notice) error { return errors.New("subscriber down") })
			x.d.OnTerminal(func(Notice) error { second++; return nil })
			x.launch("ses_a", parent1)
			_, err := x.d.Cancel(context.Background(), orch, "ses_a", "")
			noErr(t, err)
			synctest.Wait()
			if second != 1 || logs.count("subscriber down") != 1 {
				t.Fatalf("second=%d logs=%v", second, logs.msgs())
			}
			x.d.Close()
		}},
		{name: "E110_close_keeps_wait_deletion_clears", run: func(t *testing.T) {
			x := newDrv(t, true)
			if _, err := x.d.WaitForUser(orch, "need input"); err != nil {
				t.Fatal(err)
			}
			x.d.Close()
			if !x.d.b.Waiting(parent1) {
				t.Fatal("Close cleared the wait")
			}
			x.d.b.hostDeleted(deletionEvent{SessionID: parent1})
			if x.d.b.Waiting(parent1) {
				t.Fatal("deletion did not clear")
			}
		}},
		{name: "revive_notifies_parent_when_the_run_finishes", run: func(t *testing.T) {
			x := newDrv(t, true)
			x.launch("ses_r", parent1)
			x.d.Do("", func(b *Board) {
				r, _ := b.Get("ses_r")
				b.commitTerminal(commitInput{TaskID: "ses_r", Generation: r.Generation, State: StateCompleted, Summary: "one"})
			})
			x.h.messages = func(ctx context.Context, id string, limit int) ([]TranscriptEntry, error) { return nil, nil }
			res, err := x.d.Revive(context.Background(), orch, "ses_r", "more")
			noErr(t, err)
			x.d.Do("", func(b *Board) {
				b.commitTerminal(commitInput{TaskID: "ses_r", Generation: res.Generation, State: StateCompleted, Summary: "two"})
			})
			synctest.Wait()
			if x.h.count("prompt "+parent1) != 1 {
				t.Fatalf("parent notifications: %v", x.h.calls)
			}
			x.d.Close()
		}},
		{name: "E100_genuine_deletion_and_teardown", run: func(t *testing.T) {
			x := newDrv(t, true)
			x.launch("ses_a", parent1)
			x.launch("ses_b", parent1)
			x.d.Observe(HostEvent{Kind: EventDeleted, SessionID: "ses_a", FallbackTeardown: true})
			if _, ok := x.d.b.Get("ses_a"); !ok {
				t.Fatal("teardown dropped the record")
			}
			gate := make(chan struct{})
			x.h.enqueue = func(ctx context.Context, id string, m Message) error { return blockUntil(ctx, gate) }
			var err error
			var wg sync.WaitGroup
			wg.Go(func() { _, err = x.d.Message(context.Background(), orch, "ses_b", "x") })
			synctest.Wait()
			x.d.Observe(HostEvent{Kind: EventDeleted, SessionID: parent1})
			wg.Wait()
			checkErr(t, err, ErrStale, "was deleted while this call was in progress")
			if x.d.b.Waiting(parent1) {
				t.Fatal("wait kept")
			}
			if _, ok := x.d.b.Get("ses_a"); ok {
				t.Fatal("children kept after parent deletion")
			}
			if l, ok := x.d.b.LeaseForTest("ses_b"); !ok || l.Kind != leaseMessage {
				t.Fatal("the pending write's lease must stay until it settles")
			}
			close(gate)
			synctest.Wait()
			if _, ok := x.d.b.LeaseForTest("ses_b"); ok {
				t.Fatal("lease not released by the settlement")
			}
			x.d.Close()
		}},
		{name: "E89_idle_then_busy_within_grace_stays_running", run: func(t *testing.T) {
			x := newDrv(t, true)
			x.h.messages = func(context.Context, string, int) ([]TranscriptEntry, error) { return nil, nil }
			var terminal int
			x.d.OnTerminal(func(Notice) error { terminal++; return nil })
			x.launch("ses_a", parent1)
			time.Sleep(time.Second)
			x.d.Observe(HostEvent{Kind: EventIdle, SessionID: "ses_a"})
			time.Sleep(3 * time.Second)
			synctest.Wait()
			if !x.rec("ses_a").StatusUncertain {
				t.Fatal("first idle did not start the stop confirmation")
			}
			x.d.Observe(HostEvent{Kind: EventBusy, SessionID: "ses_a"})
			time.Sleep(10 * time.Second)
			synctest.Wait()
			if r := x.rec("ses_a"); r.State != StateRunning || r.StatusUncertain || terminal != 0 {
				t.Fatalf("state %s uncertain %t terminal %d", r.State, r.StatusUncertain, terminal)
			}
			x.d.Close()
		}},
		{name: "E93_periodic_pass_hangs_no_overlap", run: func(t *testing.T) {
			b, _ := NewBoard(Options{Clock: systemClock{}})
			h := &fakeHost{}
			// A pass is in flight from its read until the read settles or is cancelled
			// (its context ends); count the reads whose context is still live.
			var live []context.Context
			var maxInFlight int
			var mu sync.Mutex
			h.statuses = func(ctx context.Context) (map[string]LiveStatus, error) {
				mu.Lock()
				n := 1
				for _, c := range live {
					if c.Err() == nil {
						n++
					}
				}
				maxInFlight = max(maxInFlight, n)
				live = append(live, ctx)
				mu.Unlock()
				<-ctx.Done()
				return nil, ctx.Err()
			}
			d, _ := newDriverOn(b, Host{Aborter: h, Prompter: h, Sessions: h, Status: h, Flavor: FlavorV1})
			defer d.Close()
			d.Do("", func(b *Board) {
				b.registerLaunch(launchInput{TaskID: "ses_a", ParentID: parent1, Agent: "explorer"})
			})
			time.Sleep(10*time.Second + time.Millisecond)
			synctest.Wait()
			var r Record
			d.Do("", func(b *Board) { r, _ = b.Get("ses_a") })
			if !r.StatusUncertain || r.LastStatusError != "live status lookup timed out after 5000ms" || r.State != StateRunning {
				t.Fatalf("record %+v", r)
			}
			time.Sleep(20 * time.Second)
			synctest.Wait()
			if maxInFlight != 1 || h.count("status") < 3 {
				t.Fatalf("max in flight %d, reads %d", maxInFlight, h.count("status"))
			}
			d.Close()
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { synctest.Test(t, tc.run) })
	}
}

func mustLease(t *testing.T, b *Board, id string) leaseGrant {
	t.Helper()
	l, ok := b.LeaseForTest(id)
	if !ok {
		t.Fatalf("no lease for %s", id)
	}
	return l
}

// TestDriverNoGoroutineLeft checks that no goroutine survives the driver's operations once
// their host calls have returned, and none after Close.
func TestDriverNoGoroutineLeft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := bubbleGoroutines(t)
		x := newDrv(t, true)
		x.launch("ses_a", parent1)
		x.launch("ses_b", parent1)
		if _, err := x.d.Status(context.Background(), orch, "ses_a"); err != nil {
			t.Fatal(err)
		}
		if _, err := x.d.Message(context.Background(), orch, "ses_a", "hi"); err != nil {
			t.Fatal(err)
		}
		if _, err := x.d.Cancel(context.Background(), orch, "ses_a", ""); err != nil {
			t.Fatal(err)
		}
		x.h.messages = func(context.Context, string, int) ([]TranscriptEntry, error) { return nil, nil }
		if _, err := x.d.Revive(context.Background(), orch, "ses_a", "again"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if n := bubbleGoroutines(t); n != base {
			t.Fatalf("goroutines: %d after the calls, %d before", n, base)
		}
		if x.d.pending() != 0 {
			t.Fatalf("%d machines pending", x.d.pending())
		}
		// A write left pending past its budget keeps one goroutine until Close.
		x.h.messages = nil
		x.h.enqueue = func(ctx context.Context, id string, m Message) error { <-ctx.Done(); return ctx.Err() }
		_, err := x.d.Message(context.Background(), orch, "ses_b", "hi")
		checkErr(t, err, ErrTimeout, "transport timed out")
		x.d.Close()
		synctest.Wait()
		if n := bubbleGoroutines(t); n != base {
			t.Fatalf("goroutines after Close: %d, want %d", n, base)
		}
	})
}

// TestDriverConcurrentRace runs many tool calls on the same and different tasks at once;
// run it with -race. Every outcome must be a result or a *ToolError, the lease table must
// stay consistent, and no machine may be left once the host has settled everything.
func TestDriverConcurrentRace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		x := newDrv(t, true)
		ids := []string{"ses_a", "ses_b", "ses_c"}
		for _, id := range ids {
			x.launch(id, parent1)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 200)
		for i := 0; i < 8; i++ {
			for _, id := range ids {
				id, i := id, i
				wg.Go(func() {
					ctx := context.Background()
					var err error
					switch i % 4 {
					case 0:
						_, err = x.d.Message(ctx, orch, id, fmt.Sprint("m", i))
					case 1:
						_, err = x.d.Cancel(ctx, orch, id, "")
					case 2:
						_, err = x.d.Status(ctx, orch, id)
					case 3:
						_, err = x.d.Revive(ctx, orch, id, "go")
					}
					var te *ToolError
					if err != nil && !errors.As(err, &te) {
						errs <- err
					}
				})
			}
		}
		wg.Wait()
		synctest.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("non-tool error: %v", err)
		}
		if x.h.count("abort") > 8*3 {
			t.Fatal("too many aborts")
		}
		if x.d.pending() != 0 {
			t.Fatalf("%d machines pending: %v", x.d.pending(), x.d.PendingKinds())
		}
		if ls := x.d.b.LeasesForTest(); len(ls) != 0 {
			t.Fatalf("leases left: %v", ls)
		}
		x.d.Close()
	})
}

type captureHandler struct {
	mu   sync.Mutex
	recs []string
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := r.Message
	r.Attrs(func(a slog.Attr) bool { s += " " + a.String(); return true })
	h.recs = append(h.recs, s)
	return nil
}
func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *captureHandler) WithGroup(string) slog.Handler      { return h }
func (h *captureHandler) msgs() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.recs...)
}
func (h *captureHandler) count(sub string) int {
	n := 0
	for _, m := range h.msgs() {
		if strings.Contains(m, sub) {
			n++
		}
	}
	return n
}

// bubbleGoroutines counts the goroutines of the calling goroutine's synctest bubble. It
// reads the goroutine dump, whose first entry is the caller with its bubble named in the
// header ("goroutine 9 [running, synctest bubble 1]:"), so goroutines that other tests
// of the process start or end meanwhile do not count (runtime.NumGoroutine counts them,
// which made this check flaky under -race).
func bubbleGoroutines(t *testing.T) int {
	t.Helper()
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	dump := string(buf)
	first, _, _ := strings.Cut(dump, "\n")
	i := strings.Index(first, "synctest bubble ")
	if i < 0 {
		t.Fatalf("bubbleGoroutines called outside a synctest bubble: %q", first)
	}
	tag := strings.TrimSuffix(first[i:], ":")
	tag = strings.TrimSuffix(tag, "]") + "]"
	count := 0
	for _, line := range strings.Split(dump, "\n") {
		if strings.HasPrefix(line, "goroutine ") && strings.Contains(line, tag) {
			count++
		}
	}
	return count
}

// newDriverOn is NewDriver over a board the test prepared.
func newDriverOn(b *Board, h Host) (*Driver, error) {
	if err := h.check(); err != nil {
		return nil, err
	}
	return newDriver(b, h), nil
}

// notifyAll sets Options.NotifyAll.
func notifyAll(o *Options) { o.NotifyAll = true }
