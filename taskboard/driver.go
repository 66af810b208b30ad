package taskboard

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// timerSource schedules the driver's deadlines. The default uses time.AfterFunc; tests run the
// driver inside testing/synctest, whose fake clock drives the same timers.
type timerSource interface {
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

type realTimers struct{}

var (
	_ timerSource = realTimers{}
	_ Clock       = systemClock{}
)

func (realTimers) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// Driver runs one board's tool protocols against the host; its methods are safe for
// concurrent use.
type Driver struct {
	mu     sync.Mutex
	b      *Board
	h      Host
	caps   caps
	cfg    Options // the board's options, defaults filled in
	closed bool
	done   chan struct{}
	wg     sync.WaitGroup

	runs       map[*run]struct{}
	onTerminal []func(Notice) error
	onLaunched []func(Notice) error
	outbox     []func() // log lines to run after unlocking
	reconcile  *reconcileState

	sh *shared // nil for a one-process driver

	// Subscriber delivery: one goroutine at a time drains subQ in emission order.
	subMu      sync.Mutex
	subQ       []func()
	subRunning bool
	subClosed  bool
	subWG      sync.WaitGroup
}

type trackKey struct {
	id  string
	gen uint64
}

// run is one machine in flight.
type run struct {
	m       machine
	calls   map[callNo]context.CancelFunc
	timers  map[timerID]func() bool
	replied chan struct{}
	closed  bool          // replied channel closed
	forgot  chan struct{} // closed when a genuine deletion makes the driver forget the call
	scope   []string      // shared driver: the shards the machine's steps load
}

// sessionsOf is implemented by tool machines: the caller's session and the task they act
// on, so a genuine deletion of either can release a waiting caller.
type sessionsOf interface{ sessions() []string }

func (m *cancelM) sessions() []string   { return []string{m.caller.SessionID, m.id} }
func (m *messaging) sessions() []string { return []string{m.caller.SessionID, m.rec.TaskID} }
func (m *reviveM) sessions() []string   { return []string{m.caller.SessionID, m.id} }
func (m *statusM) sessions() []string   { return []string{m.caller.SessionID, m.rec.TaskID} }
func (m *resultM) sessions() []string   { return []string{m.caller.SessionID, m.rec.TaskID} }

// forget releases the callers waiting on machines that act for a deleted session; the
// machines keep running to settle their leases (lock held).
func (d *Driver) forget(deleted map[string]bool) {
	for r := range d.runs {
		so, ok := r.m.(sessionsOf)
		if !ok || r.closed {
			continue
		}
		for _, s := range so.sessions() {
			if s != "" && deleted[s] {
				f := func() {
					select {
					case <-r.forgot:
					default:
						close(r.forgot)
					}
				}
				if d.sh != nil && d.sh.fx != nil {
					d.sh.fx = append(d.sh.fx, f)
				} else {
					f()
				}
				break
			}
		}
	}
}

// NewDriver returns a one-process driver over a new board configured by o and the host h.
// A capability h lacks (see [Host]) or an option out of range is refused here, with the
// reason. NewDriver starts no goroutine.
func NewDriver(h Host, o Options) (*Driver, error) {
	if err := h.check(); err != nil {
		return nil, err
	}
	b, err := NewBoard(o)
	if err != nil {
		return nil, err
	}
	return newDriver(b, h), nil
}

func newDriver(b *Board, h Host) *Driver {
	return &Driver{b: b, h: h, caps: h.capsOf(), cfg: b.opts, done: make(chan struct{}),
		runs: map[*run]struct{}{}}
}

// check refuses a host whose capabilities do not match its flavour.
func (h Host) check() error {
	if h.Aborter == nil || h.Prompter == nil || h.Sessions == nil {
		return errors.New("taskboard: NewDriver needs Host.Aborter, Host.Prompter and Host.Sessions")
	}
	switch h.Flavor {
	case FlavorV1:
		if h.Status == nil {
			return errors.New("taskboard: NewDriver: Host.Flavor is FlavorV1 but Host.Status is nil; a v1 host must provide its status map (task_cancel and task_status read it)")
		}
	case FlavorV2:
	case "":
		return errors.New("taskboard: NewDriver: Host.Flavor is not set; use FlavorV1 (a host with a status map) or FlavorV2 (per-session reads, optional IdleWaiter)")
	default:
		return fmt.Errorf("taskboard: NewDriver: unknown Host.Flavor %q; use FlavorV1 or FlavorV2", h.Flavor)
	}
	return nil
}

// Do runs f on the board under the driver's lock, the one way to inspect it or to call its
// mutators; f sees parentID's tasks and wait latch (a one-process board: every parent's).
// A panic in f reaches the caller; the driver stays usable.
func (d *Driver) Do(parentID string, f func(b *Board)) error {
	d.mu.Lock()
	defer d.unlock()
	if d.closed {
		return toolErr(ErrClosed, "the task board was closed; no action was taken")
	}
	return d.step(context.Background(), []string{parentID}, func() error {
		f(d.b)
		d.drain()
		return nil
	})
}

// Manage marks sessionID as an orchestrator session.
func (d *Driver) Manage(sessionID string) error {
	return d.Do(sessionID, func(b *Board) { b.manage(sessionID) })
}

// unlock releases the mutex and runs the queued callbacks outside it.
func (d *Driver) unlock() {
	out := d.outbox
	d.outbox = nil
	d.mu.Unlock()
	for _, f := range out {
		f()
	}
}

// start registers a machine and runs its Start (lock held).
func (d *Driver) start(m machine) *run {
	r := &run{m: m, calls: map[callNo]context.CancelFunc{}, timers: map[timerID]func() bool{},
		replied: make(chan struct{}), forgot: make(chan struct{}), scope: d.scope()}
	d.runs[r] = struct{}{}
	d.exec(r, m.Start(d.b))
	d.settle(r)
	return r
}

// exec carries out commands (lock held). Timers and host calls are effects: a shared
// driver performs them only after the step's write committed.
func (d *Driver) exec(r *run, cmds []command) {
	for _, c := range cmds {
		switch c := c.(type) {
		case startTimer, stopTimer, cancelCall:
			if d.sh != nil && d.sh.fx != nil {
				d.sh.fx = append(d.sh.fx, func() { d.effect(r, c) })
			} else {
				d.effect(r, c)
			}
		case logLine:
			l := c
			d.outbox = append(d.outbox, func() { d.cfg.Logger.LogAttrs(context.Background(), l.Level, l.Msg, l.Attrs...) })
		case spawn:
			if e, ok := c.Machine.(*evidence); ok && d.evidenceRunning(e.id) {
				continue // one evidence read per record at a time
			}
			d.start(c.Machine)
		case proceed, withdraw:
			// answers to a Dispatch are read by dispatch()
		case hostCall:
			if d.sh != nil && d.sh.fx != nil {
				d.sh.fx = append(d.sh.fx, func() { d.launch(r, c) })
			} else {
				d.launch(r, c)
			}
		}
	}
}

// effect carries out a timer command (lock held).
func (d *Driver) effect(r *run, c command) {
	switch c := c.(type) {
	case startTimer:
		id := c.Timer
		r.timers[id] = d.cfg.timers.AfterFunc(c.After, func() { d.deliver(r, fired{Timer: id}) })
	case stopTimer:
		if stop, ok := r.timers[c.Timer]; ok {
			stop()
			delete(r.timers, c.Timer)
		}
	case cancelCall:
		if cancel, ok := r.calls[c.Call]; ok {
			cancel()
			delete(r.calls, c.Call)
		}
	}
}

// launch starts the goroutine of one host call (lock held). The call's context is
// cancelled at Timing.HostCallDeadline (unless that is negative), by CancelCall, or by
// Close. A call that returns has settled, whatever its error.
func (d *Driver) launch(r *run, c hostCall) {
	id := c.callID()
	ctx, cancel := context.WithCancel(context.Background())
	r.calls[id] = cancel
	stop := func() bool { return false }
	if dl := d.b.timing().HostCallDeadline; dl > 0 {
		stop = d.cfg.timers.AfterFunc(dl, cancel)
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer cancel()
		defer stop()
		if c.guarded() && !d.dispatch(r, id) {
			return
		}
		d.deliver(r, c.perform(ctx, d.h))
	}()
}

// dispatch delivers Dispatch under the lock and reports whether the machine proceeds.
func (d *Driver) dispatch(r *run, id callNo) bool {
	d.mu.Lock()
	if d.closed {
		// Every later dispatch is withdrawn: the machine is told, nothing runs.
		d.mu.Unlock()
		return false
	}
	if _, live := d.runs[r]; !live {
		d.mu.Unlock()
		return false
	}
	var ok bool
	if d.sh == nil {
		ok = d.dispatchStep(r, id)
	} else {
		ok = d.sharedDispatch(r, id)
	}
	if !ok {
		delete(r.calls, id)
	}
	d.unlock()
	return ok
}

// dispatchStep delivers Dispatch and reports whether the machine answered Proceed (lock
// held, inside a step).
func (d *Driver) dispatchStep(r *run, id callNo) bool {
	cmds := r.m.Step(d.b, dispatch{Call: id})
	ok := false
	for _, c := range cmds {
		if p, is := c.(proceed); is && p.Call == id {
			ok = true
		}
	}
	d.exec(r, cmds)
	d.settle(r)
	return ok
}

// sharedDispatch is dispatchStep as one step of a shared driver: no call is made unless
// the step committed.
func (d *Driver) sharedDispatch(r *run, id callNo) bool {
	ok := false
	err := d.step(nil, r.scope, func() error {
		ok = d.dispatchStep(r, id)
		return nil
	})
	return err == nil && ok
}

// deliver hands one event to a machine under the lock. After Close nothing is delivered.
func (d *Driver) deliver(r *run, ev event) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	if _, live := d.runs[r]; !live {
		d.mu.Unlock()
		return
	}
	if id, ok := ev.call(); ok {
		delete(r.calls, id)
	}
	if f, ok := ev.(fired); ok {
		delete(r.timers, f.Timer)
	}
	if d.sh == nil {
		d.exec(r, r.m.Step(d.b, ev))
		d.settle(r)
	} else {
		d.sharedDeliver(r, ev)
	}
	d.unlock()
}

func (d *Driver) sharedDeliver(r *run, ev event) {
	d.step(nil, r.scope, func() error {
		d.exec(r, r.m.Step(d.b, ev))
		d.settle(r)
		return nil
	})
}

// settle publishes a reply, retires a finished machine and processes notices (lock held).
func (d *Driver) settle(r *run) {
	if r.m.Replied() && !r.closed {
		r.closed = true
		if d.sh != nil && d.sh.fx != nil {
			d.sh.fx = append(d.sh.fx, func() { close(r.replied) })
		} else {
			close(r.replied)
		}
	}
	if r.m.Done() {
		delete(d.runs, r)
		if d.sh != nil && d.sh.fx != nil {
			d.sh.fx = append(d.sh.fx, func() { d.retire(r) })
		} else {
			d.retire(r)
		}
	}
	d.drain()
}

// retire stops a finished machine's timers (lock held).
func (d *Driver) retire(r *run) {
	if _, ok := r.m.(*reconcilePass); ok && d.reconcile != nil {
		d.reconcile.inFlight = false
	}
	for id, stop := range r.timers {
		stop()
		delete(r.timers, id)
	}
}

// drain processes the board's notices (lock held): subscribers are queued to run after
// unlocking, finished tracked runs get a notification machine, released leases wake parked
// notifications.
func (d *Driver) drain() {
	for {
		ns := d.b.drain()
		if len(ns) == 0 {
			break
		}
		for _, n := range ns {
			switch n.Kind {
			case noticeTerminal:
				d.queue(d.onTerminal, n)
				for r := range d.runs {
					if sv, ok := r.m.(*supervise); ok && sv.id == n.TaskID {
						d.exec(r, r.m.Step(d.b, noticeEvent{Notice: n}))
						d.settle(r)
					}
				}
				if (n.State == StateCompleted || n.State == StateError) && (d.cfg.NotifyAll || d.b.tracked[n.TaskID] == n.Generation) {
					d.start(newNotify(n.ParentID, n, d.caps))
				}
			case noticeLaunched:
				d.queue(d.onLaunched, n)
				d.armReconcile()
				if d.b.options().WallClock > 0 {
					d.start(newSupervise(n.TaskID, n.Generation))
				}
			case noticeLeaseReleased:
				for r := range d.runs {
					if nm, ok := r.m.(*notifyM); ok && nm.State() == notifyParked && nm.n.TaskID == n.TaskID {
						d.exec(r, r.m.Step(d.b, noticeEvent{Notice: n}))
						d.settle(r)
					}
				}
			}
		}
	}
	d.b.prune()
}

// queue hands n to the subscribers (lock held). Notices enter one FIFO in emission order;
// a single delivery goroutine, started on demand, runs them one at a time outside the lock.
func (d *Driver) queue(subs []func(Notice) error, n Notice) {
	if len(subs) == 0 {
		return
	}
	if d.sh != nil && d.sh.fx != nil {
		d.sh.fx = append(d.sh.fx, func() { d.enqueue(subs, n) })
		return
	}
	d.enqueue(subs, n)
}

func (d *Driver) enqueue(subs []func(Notice) error, n Notice) {
	d.subMu.Lock()
	defer d.subMu.Unlock()
	if d.subClosed {
		return
	}
	for _, fn := range subs {
		d.subQ = append(d.subQ, func() {
			if err := fn(n); err != nil {
				d.cfg.Logger.Warn("taskboard: notice subscriber failed", "kind", n.Kind, "task_id", n.TaskID, "error", err)
			}
		})
	}
	if !d.subRunning {
		d.subRunning = true
		d.subWG.Add(1)
		go d.deliverNotices()
	}
}

// deliverNotices runs queued subscriber calls in order until the queue is empty or the
// driver closes.
func (d *Driver) deliverNotices() {
	defer d.subWG.Done()
	for {
		d.subMu.Lock()
		if d.subClosed || len(d.subQ) == 0 {
			d.subRunning = false
			d.subMu.Unlock()
			return
		}
		f := d.subQ[0]
		d.subQ[0] = nil
		d.subQ = d.subQ[1:]
		d.subMu.Unlock()
		f()
	}
}

// runTool starts a tool machine and waits for its reply, the caller's context, or Close.
func (d *Driver) runTool(ctx context.Context, m machine) (machine, error) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil, toolErr(ErrClosed, "the task board was closed; no action was taken")
	}
	var r *run
	if d.sh == nil {
		r = d.start(m)
	} else {
		var err error
		if r, err = d.sharedStart(ctx, m); err != nil {
			d.unlock()
			return nil, err
		}
	}
	d.unlock()
	select {
	case <-r.replied:
		return d.replied(r), nil
	default:
	}
	select {
	case <-r.replied:
		return d.replied(r), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-r.forgot:
		return nil, toolErr(ErrStale, "The session was deleted while this call was in progress; no result is available. Any lease it holds is released when its host call settles.")
	case <-d.done:
		return nil, toolErr(ErrClosed, "the task board was closed while the call was in progress")
	}
}

// sharedStart starts m in one step of a shared driver; every attempt starts a fresh copy.
func (d *Driver) sharedStart(ctx context.Context, m machine) (*run, error) {
	var r *run
	err := d.step(ctx, []string{callerScope(m)}, func() error {
		r = d.start(m.clone())
		return nil
	})
	return r, err
}

// replied returns the machine whose outcome a caller reads: on a shared driver the copy
// the committed steps advanced (its outcome no longer changes once it replied).
func (d *Driver) replied(r *run) machine {
	if d.sh == nil {
		return r.m
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return r.m
}

// Status runs task_status for ref, a task ID or alias of the caller's tasks.
func (d *Driver) Status(ctx context.Context, c Caller, ref string) (StatusResult, error) {
	m := newStatus(c, statusArgs{Ref: ref}, d.caps)
	mm, err := d.runTool(ctx, m)
	if err != nil {
		return StatusResult{}, err
	}
	return mm.(*statusM).Outcome()
}

// Result runs task_result for ref.
func (d *Driver) Result(ctx context.Context, c Caller, ref string) (ResultOutput, error) {
	m := newResult(c, resultArgs{Ref: ref}, d.caps)
	mm, err := d.runTool(ctx, m)
	if err != nil {
		return ResultOutput{}, err
	}
	return mm.(*resultM).Outcome()
}

// Message runs task_message, writing text to the running task ref without a turn.
func (d *Driver) Message(ctx context.Context, c Caller, ref, text string) (MessageResult, error) {
	m := newMessage(c, messageArgs{Ref: ref, Text: text}, d.caps)
	mm, err := d.runTool(ctx, m)
	if err != nil {
		return MessageResult{}, err
	}
	return mm.(*messaging).Outcome()
}

// Cancel runs task_cancel; reason, if any, goes into the cancelled result's text.
func (d *Driver) Cancel(ctx context.Context, c Caller, ref, reason string) (CancelResult, error) {
	m := newCancel(c, cancelArgs{Ref: ref, Reason: reason}, d.caps)
	mm, err := d.runTool(ctx, m)
	if err != nil {
		return CancelResult{}, err
	}
	return mm.(*cancelM).Outcome()
}

// Revive runs task_revive, resuming the finished task ref with prompt as a new turn.
func (d *Driver) Revive(ctx context.Context, c Caller, ref, prompt string) (ReviveResult, error) {
	m := newRevive(c, reviveArgs{Ref: ref, Prompt: prompt}, d.caps)
	mm, err := d.runTool(ctx, m)
	if err != nil {
		return ReviveResult{}, err
	}
	return mm.(*reviveM).Outcome()
}

// Task runs task()'s before-hook; give the plan to [Driver.FinishTask] or [Driver.FailTask].
// A resume reads the transcript once to record where the new run starts. Errors:
// ErrRefused, ErrLeaseUnavailable, ErrDuplicate, ErrHost (nothing changed), ErrClosed.
func (d *Driver) Task(ctx context.Context, c Caller, in TaskCall) (TaskPlan, error) {
	if err := ctx.Err(); err != nil {
		return TaskPlan{}, err
	}
	if in.flavor == "" {
		in.flavor = d.h.Flavor
	}
	d.mu.Lock()
	if d.closed {
		d.unlock()
		return TaskPlan{}, toolErr(ErrClosed, "the task board was closed; no action was taken")
	}
	var p TaskPlan
	var err error
	serr := d.step(ctx, []string{c.SessionID}, func() error {
		p, err = d.b.prepareTask(c, in)
		d.drain()
		return nil
	})
	timeout := d.b.timing().BaselineTimeout
	limit := d.b.timing().ResultHistory
	d.unlock()
	if serr != nil {
		return TaskPlan{}, serr
	}
	if err != nil || p.Kind != planResume {
		return p, err
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	entries, rerr := d.h.Sessions.Messages(rctx, p.TaskID, limit)
	cancel()
	var baseline string
	if rerr == nil {
		baseline, rerr = baselineOf(p.TaskID, entries)
	}
	if rerr != nil {
		_ = d.FailTask(p)
		return TaskPlan{}, toolErr(ErrHost, fmt.Sprintf("Task %s was not resumed: reading its transcript failed (%v). Nothing changed; try task() again.", p.TaskID, rerr))
	}
	p.baseline = baseline
	return p, nil
}

// FinishTask runs task()'s after-hook: it registers the launch the host reported (a second
// report merges into that run). An output for a run no longer current is ErrStale and
// changes nothing.
func (d *Driver) FinishTask(p TaskPlan, obs LaunchObservation) (TaskLaunchResult, error) {
	d.mu.Lock()
	defer d.unlock()
	if d.closed {
		d.afterClose(p)
		return TaskLaunchResult{}, toolErr(ErrClosed, "the task board was closed; the launch was not recorded")
	}
	var res TaskLaunchResult
	var err error
	if serr := d.step(context.Background(), []string{p.parentID}, func() error {
		res, err = d.b.finishTask(p, obs)
		d.drain()
		return nil
	}); serr != nil {
		return TaskLaunchResult{}, serr
	}
	return res, err
}

// afterClose releases a plan's lease after Close (lock held), changing nothing else.
func (d *Driver) afterClose(p TaskPlan) {
	if d.sh == nil {
		d.b.failTask(p)
		d.b.drain()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), d.sh.opTimeout)
	defer cancel()
	d.step(ctx, []string{p.parentID}, func() error {
		d.b.failTask(p)
		d.b.drain()
		return nil
	})
}

// FailTask releases a plan's lease after a host or handler error.
func (d *Driver) FailTask(p TaskPlan) error {
	d.mu.Lock()
	defer d.unlock()
	if d.closed {
		d.afterClose(p)
		return toolErr(ErrClosed, "the task board was closed; the plan's lease was released")
	}
	return d.step(context.Background(), []string{p.parentID}, func() error {
		d.b.failTask(p)
		d.drain()
		return nil
	})
}

// WaitForUser runs wait_for_user.
func (d *Driver) WaitForUser(c Caller, reason string) (WaitResult, error) {
	d.mu.Lock()
	defer d.unlock()
	if d.closed {
		return WaitResult{}, toolErr(ErrClosed, "the task board was closed; no action was taken")
	}
	var res WaitResult
	var err error
	if serr := d.step(context.Background(), []string{c.SessionID}, func() error {
		res, err = d.b.waitForUser(c, reason)
		return nil
	}); serr != nil {
		return WaitResult{}, serr
	}
	return res, err
}

// View renders the task section of parentID's prompt; the parent's next idle
// acknowledges its "Needs acknowledgement" lines.
func (d *Driver) View(parentID string) (string, error) {
	v, err := d.render(parentID)
	return v.Text, err
}

// render is [Driver.View] with the acknowledgement lines it remembered.
func (d *Driver) render(parentID string) (promptView, error) {
	d.mu.Lock()
	defer d.unlock()
	if d.closed {
		return promptView{}, toolErr(ErrClosed, "the task board was closed")
	}
	var v promptView
	err := d.step(context.Background(), []string{parentID}, func() error {
		v = d.b.view(parentID)
		if len(v.shown) > 0 {
			d.b.shown[parentID] = v.shown
		} else {
			delete(d.b.shown, parentID)
		}
		return nil
	})
	return v, err
}

// OnTerminal subscribes fn to terminal notices, delivered one at a time in emission order;
// an error is logged. None is delivered after [Driver.Close] returns.
func (d *Driver) OnTerminal(fn func(Notice) error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.onTerminal = append(d.onTerminal, fn)
}

// OnLaunched subscribes fn to launched notices, as [Driver.OnTerminal] does.
func (d *Driver) OnLaunched(fn func(Notice) error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.onLaunched = append(d.onLaunched, fn)
}

// Close withdraws every later dispatch, stops the timers, cancels pending host calls and
// delivers none of their settlements; leases and armed waits stay as they are. It waits
// for the subscriber in progress and the host-call goroutines.
func (d *Driver) Close() error {
	if d.sh != nil {
		d.sh.cancel() // a step blocked on the store gives up
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	d.b.dispose()
	for r := range d.runs {
		for id, stop := range r.timers {
			stop()
			delete(r.timers, id)
		}
		for id, cancel := range r.calls {
			cancel()
			delete(r.calls, id)
		}
	}
	d.runs = map[*run]struct{}{}
	d.stopReconcile()
	close(d.done)
	d.mu.Unlock()
	d.subMu.Lock()
	d.subClosed = true
	d.subQ = nil
	d.subMu.Unlock()
	d.subWG.Wait()
	d.wg.Wait()
	return nil
}

// pending returns how many machines are still running (for tests).
func (d *Driver) pending() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.runs)
}
