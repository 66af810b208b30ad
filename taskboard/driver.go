package taskboard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
	_ Clock       = SystemClock{}
)

func (realTimers) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// SystemClock is the [Clock] a production driver's board uses: it reads time.Now. Only the
// host wires it in; the board itself never reads the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// DriverOption configures a [Driver].
type DriverOption func(*driverConfig)

type driverConfig struct {
	timers      timerSource
	logger      *slog.Logger
	notifyAll   bool
	noReconcile bool
}

// WithLogger sets the logger for the machines' log lines (default: discarded).
func WithLogger(l *slog.Logger) DriverOption { return func(c *driverConfig) { c.logger = l } }

// WithNotifyAll makes the driver notify the parent of every run that reaches completed or
// error, not only of runs a revive registered.
func WithNotifyAll() DriverOption { return func(c *driverConfig) { c.notifyAll = true } }

// Driver runs the tool protocols against the host. It serialises every board access with
// one mutex, runs each host call in its own goroutine with a context that is cancelled at
// Timing.HostCallDeadline, by the protocol, or by Close, turns protocol deadlines into
// timers, and delivers replies and firings to the owning protocol under the lock. A tool
// method returns as soon as its protocol has an answer; the protocol keeps running in the
// background until it is done (to settle the leases it holds). Subscribers and the logger
// run outside the lock.
//
// A lease is held until the host call that needs it settles (returns). A call that returns
// after its context was cancelled has settled and releases as usual; one that ignores
// cancellation keeps its lease, and the task ID stays excluded until an operator breaks
// the lease with [Board.ForceRelease]. Subscribers and host calls must not call Close
// themselves (it would wait for them).
type Driver struct {
	mu     sync.Mutex
	b      *Board
	h      Host
	caps   caps
	cfg    driverConfig
	closed bool
	done   chan struct{}
	wg     sync.WaitGroup

	runs       map[*run]struct{}
	tracked    map[trackKey]bool
	shown      map[string][]shownEntry
	onTerminal []func(Notice) error
	onLaunched []func(Notice) error
	outbox     []func() // log lines to run after unlocking
	reconcile  *reconcileState

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
				select {
				case <-r.forgot:
				default:
					close(r.forgot)
				}
				break
			}
		}
	}
}

// NewDriver returns a driver over b and the host h. Aborter, Prompter and Sessions are
// required, and so is Flavor: FlavorV1 needs Status (the v1 status map); FlavorV2 may add
// Idle. A missing or inconsistent capability is refused here, with the reason, instead of
// failing later inside a tool call. NewDriver starts no goroutine.
func NewDriver(b *Board, h Host, opts ...DriverOption) (*Driver, error) {
	if b == nil {
		return nil, errors.New("taskboard: NewDriver needs a Board")
	}
	if h.Aborter == nil || h.Prompter == nil || h.Sessions == nil {
		return nil, errors.New("taskboard: NewDriver needs Host.Aborter, Host.Prompter and Host.Sessions")
	}
	switch h.Flavor {
	case FlavorV1:
		if h.Status == nil {
			return nil, errors.New("taskboard: NewDriver: Host.Flavor is FlavorV1 but Host.Status is nil; a v1 host must provide its status map (task_cancel and task_status read it)")
		}
	case FlavorV2:
	case "":
		return nil, errors.New("taskboard: NewDriver: Host.Flavor is not set; use FlavorV1 (a host with a status map) or FlavorV2 (per-session reads, optional IdleWaiter)")
	default:
		return nil, fmt.Errorf("taskboard: NewDriver: unknown Host.Flavor %q; use FlavorV1 or FlavorV2", h.Flavor)
	}
	cfg := driverConfig{timers: realTimers{}, logger: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&cfg)
	}
	return &Driver{b: b, h: h, caps: h.capsOf(), cfg: cfg, done: make(chan struct{}),
		runs: map[*run]struct{}{}, tracked: map[trackKey]bool{}, shown: map[string][]shownEntry{}}, nil
}

// Board returns the driver's board. Use it only through [Driver.Do] while the driver is
// running.
func (d *Driver) Board() *Board { return d.b }

// Do runs f with the board under the driver's lock, then processes the notices f caused.
// After [Driver.Close] it returns ErrClosed without calling f. A panic in f releases the
// lock and reaches the caller; the driver stays usable.
func (d *Driver) Do(f func(b *Board)) error {
	d.mu.Lock()
	defer d.unlock()
	if d.closed {
		return toolErr(ErrClosed, "the task board was closed; no action was taken")
	}
	f(d.b)
	d.drain()
	return nil
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
		replied: make(chan struct{}), forgot: make(chan struct{})}
	d.runs[r] = struct{}{}
	d.exec(r, m.Start(d.b))
	d.settle(r)
	return r
}

// exec carries out commands (lock held).
func (d *Driver) exec(r *run, cmds []command) {
	for _, c := range cmds {
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
		case logLine:
			l := c
			d.outbox = append(d.outbox, func() { d.cfg.logger.LogAttrs(context.Background(), l.Level, l.Msg, l.Attrs...) })
		case spawn:
			if e, ok := c.Machine.(*evidence); ok && d.evidenceRunning(e.id) {
				continue // one evidence read per record at a time
			}
			d.start(c.Machine)
		case proceed, withdraw:
			// answers to a Dispatch are read by dispatch()
		default:
			if id, ok := callOfCommand(c); ok {
				d.launch(r, id, c)
			}
		}
	}
}

// launch starts the goroutine of one host call (lock held). The call's context is
// cancelled at Timing.HostCallDeadline (unless that is negative), by CancelCall, or by
// Close. A call that returns has settled, whatever its error.
func (d *Driver) launch(r *run, id callNo, c command) {
	ctx, cancel := context.WithCancel(context.Background())
	r.calls[id] = cancel
	stop := func() bool { return false }
	if dl := d.b.Timing().HostCallDeadline; dl > 0 {
		stop = d.cfg.timers.AfterFunc(dl, cancel)
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer cancel()
		defer stop()
		if guarded(c) && !d.dispatch(r, id) {
			return
		}
		d.deliver(r, d.perform(ctx, id, c))
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
	cmds := r.m.Step(d.b, dispatch{Call: id})
	ok := false
	for _, c := range cmds {
		if p, is := c.(proceed); is && p.Call == id {
			ok = true
		}
	}
	if !ok {
		delete(r.calls, id)
	}
	d.exec(r, cmds)
	d.settle(r)
	d.unlock()
	return ok
}

// perform makes one host call and returns its reply event.
func (d *Driver) perform(ctx context.Context, id callNo, c command) event {
	switch c := c.(type) {
	case abort:
		ok, err := d.h.Aborter.Abort(ctx, c.SessionID)
		return abortReply{Call: id, Confirmed: ok, Err: err}
	case readStatus:
		if d.h.Status == nil {
			return statusReply{Call: id, Err: errors.New("live status unavailable")}
		}
		s, err := d.h.Status.Statuses(ctx)
		return statusReply{Call: id, Snapshot: s, Err: err}
	case readSession:
		info, err := d.h.Sessions.Session(ctx, c.SessionID)
		return sessionReply{Call: id, Info: info, Err: err}
	case readMessages:
		es, err := d.h.Sessions.Messages(ctx, c.SessionID, c.Limit)
		return messagesReply{Call: id, Entries: es, Err: err}
	case waitIdle:
		if d.h.Idle == nil {
			return idleReply{Call: id, Err: errors.New("idle waiter unavailable")}
		}
		return idleReply{Call: id, Err: d.h.Idle.WaitIdle(ctx, c.SessionID)}
	case writeMessage:
		return writeReply{Call: id, Err: d.h.Prompter.Enqueue(ctx, c.SessionID, c.Message)}
	case sendPrompt:
		return promptReply{Call: id, Err: d.h.Prompter.PromptAsync(ctx, c.SessionID, c.Prompt)}
	}
	panic(fmt.Sprintf("taskboard: unknown host call %T", c))
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
	if id, ok := callOf(ev); ok {
		delete(r.calls, id)
	}
	if f, ok := ev.(fired); ok {
		delete(r.timers, f.Timer)
	}
	d.exec(r, r.m.Step(d.b, ev))
	d.settle(r)
	d.unlock()
}

// settle publishes a reply, retires a finished machine and processes notices (lock held).
func (d *Driver) settle(r *run) {
	if r.m.Replied() && !r.closed {
		r.closed = true
		close(r.replied)
	}
	if rv, ok := r.m.(*reviveM); ok {
		if gen, ok := rv.Registered(); ok {
			d.tracked[trackKey{rv.id, gen}] = true
		}
	}
	if r.m.Done() {
		if _, ok := r.m.(*reconcilePass); ok && d.reconcile != nil {
			d.reconcile.inFlight = false
		}
		delete(d.runs, r)
		for id, stop := range r.timers {
			stop()
			delete(r.timers, id)
		}
	}
	d.drain()
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
			case NoticeTerminal:
				d.queue(d.onTerminal, n)
				for r := range d.runs {
					if sv, ok := r.m.(*supervise); ok && sv.id == n.TaskID {
						d.exec(r, r.m.Step(d.b, noticeEvent{Notice: n}))
						d.settle(r)
					}
				}
				if (n.State == StateCompleted || n.State == StateError) && (d.cfg.notifyAll || d.tracked[trackKey{n.TaskID, n.Generation}]) {
					d.start(newNotify(n.ParentID, n, d.caps))
				}
			case NoticeLaunched:
				d.queue(d.onLaunched, n)
				d.armReconcile()
				if d.b.Options().WallClock > 0 {
					d.start(newSupervise(n.TaskID, n.Generation))
				}
			case NoticeLeaseReleased:
				for r := range d.runs {
					if nm, ok := r.m.(*notifyM); ok && nm.State() == NotifyParked && nm.n.TaskID == n.TaskID {
						d.exec(r, r.m.Step(d.b, noticeEvent{Notice: n}))
						d.settle(r)
					}
				}
			}
		}
	}
	d.prune()
}

// prune forgets bookkeeping for records that are gone or moved on (lock held), so the
// driver's memory follows the board's retention caps, not the history of the process.
func (d *Driver) prune() {
	for k := range d.tracked {
		if r, ok := d.b.records[k.id]; !ok || r.Generation != k.gen {
			delete(d.tracked, k)
		}
	}
	for parent := range d.shown {
		if len(d.b.children[parent]) == 0 {
			delete(d.shown, parent)
		}
	}
}

// queue hands n to the subscribers (lock held). Notices enter one FIFO in emission order;
// a single delivery goroutine, started on demand, runs them one at a time outside the lock.
func (d *Driver) queue(subs []func(Notice) error, n Notice) {
	if len(subs) == 0 {
		return
	}
	d.subMu.Lock()
	defer d.subMu.Unlock()
	if d.subClosed {
		return
	}
	for _, fn := range subs {
		d.subQ = append(d.subQ, func() {
			if err := fn(n); err != nil {
				d.cfg.logger.Warn("taskboard: notice subscriber failed", "kind", n.Kind, "task_id", n.TaskID, "error", err)
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
func (d *Driver) runTool(ctx context.Context, m machine) error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return toolErr(ErrClosed, "the task board was closed; no action was taken")
	}
	r := d.start(m)
	d.unlock()
	select {
	case <-r.replied:
		return nil
	default:
	}
	select {
	case <-r.replied:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-r.forgot:
		return toolErr(ErrStale, "The session was deleted while this call was in progress; no result is available. Any lease it holds is released when its host call settles.")
	case <-d.done:
		return toolErr(ErrClosed, "the task board was closed while the call was in progress")
	}
}

// Status runs task_status for ref, a task ID, alias or session ID of the caller's tasks.
func (d *Driver) Status(ctx context.Context, c Caller, ref string) (StatusResult, error) {
	m := newStatus(c, statusArgs{Ref: ref}, d.caps)
	if err := d.runTool(ctx, m); err != nil {
		return StatusResult{}, err
	}
	return m.Outcome()
}

// Result runs task_result for ref.
func (d *Driver) Result(ctx context.Context, c Caller, ref string) (ResultOutput, error) {
	m := newResult(c, resultArgs{Ref: ref}, d.caps)
	if err := d.runTool(ctx, m); err != nil {
		return ResultOutput{}, err
	}
	return m.Outcome()
}

// Message runs task_message: it writes text to the transcript of the running task ref
// without starting a turn.
func (d *Driver) Message(ctx context.Context, c Caller, ref, text string) (MessageResult, error) {
	m := newMessage(c, messageArgs{Ref: ref, Text: text}, d.caps)
	if err := d.runTool(ctx, m); err != nil {
		return MessageResult{}, err
	}
	return m.Outcome()
}

// Cancel runs task_cancel for ref; reason (may be empty) becomes the cancelled result's
// text.
func (d *Driver) Cancel(ctx context.Context, c Caller, ref, reason string) (CancelResult, error) {
	m := newCancel(c, cancelArgs{Ref: ref, Reason: reason}, d.caps)
	if err := d.runTool(ctx, m); err != nil {
		return CancelResult{}, err
	}
	return m.Outcome()
}

// Revive runs task_revive: it resumes the finished task ref with prompt as the new
// turn.
func (d *Driver) Revive(ctx context.Context, c Caller, ref, prompt string) (ReviveResult, error) {
	m := newRevive(c, reviveArgs{Ref: ref, Prompt: prompt}, d.caps)
	if err := d.runTool(ctx, m); err != nil {
		return ReviveResult{}, err
	}
	return m.Outcome()
}

// Task runs task()'s before-hook: call it before the host launches the task, then give
// the plan to [Driver.FinishTask] with the host's output (or to [Driver.FailTask] when the
// launch failed). A resume takes the task's relaunch lease and reads the session's
// transcript once (bounded by Timing.BaselineTimeout) to record where the new run starts,
// so the previous run's answer is never taken for the new one's.
//
// Errors: ErrRefused, ErrLeaseUnavailable, ErrDuplicate, ErrHost (the baseline read
// failed; the lease is released and nothing changed), ErrClosed.
func (d *Driver) Task(ctx context.Context, c Caller, in TaskCall) (TaskPlan, error) {
	if err := ctx.Err(); err != nil {
		return TaskPlan{}, err
	}
	if in.Flavor == "" {
		in.Flavor = d.h.Flavor
	}
	d.mu.Lock()
	if d.closed {
		d.unlock()
		return TaskPlan{}, toolErr(ErrClosed, "the task board was closed; no action was taken")
	}
	p, err := d.b.PrepareTask(c, in)
	d.drain()
	timeout := d.b.Timing().BaselineTimeout
	limit := d.b.Timing().ResultHistory
	d.unlock()
	if err != nil || p.Kind != PlanResume {
		return p, err
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	entries, rerr := d.h.Sessions.Messages(rctx, p.TaskID, limit)
	cancel()
	if rerr != nil {
		_ = d.FailTask(p)
		return TaskPlan{}, toolErr(ErrHost, fmt.Sprintf("Task %s was not resumed: reading its transcript failed (%v). Nothing changed; try task() again.", p.TaskID, rerr))
	}
	if n := len(entries); n > 0 {
		p.Baseline = entries[n-1].ID
	}
	return p, nil
}

// FinishTask runs task()'s after-hook under the lock: call it with the plan [Driver.Task]
// returned and what the host's task output said. It registers the launch (or, when the
// launch was already registered by an event or an earlier call with the same plan, merges
// the metadata into that run without relaunching it) and returns the record's alias and
// state. A task launched in the background is then running; it becomes complete when the
// host reports the session idle ([Driver.Observe] with EventIdle) and the transcript's
// newest assistant entry of this run is finished (its text is the result); an error entry
// makes it an error. An output for a run that is no longer current returns ErrStale and
// changes nothing.
//
// After [Driver.Close] it returns ErrClosed, registers nothing and releases the plan's
// lease, so no lease is left behind.
func (d *Driver) FinishTask(p TaskPlan, obs LaunchObservation) (TaskLaunchResult, error) {
	d.mu.Lock()
	defer d.unlock()
	if d.closed {
		d.b.FailTask(p)
		d.b.drain()
		return TaskLaunchResult{}, toolErr(ErrClosed, "the task board was closed; the launch was not recorded")
	}
	res, err := d.b.FinishTask(p, obs)
	d.drain()
	return res, err
}

// FailTask releases a plan's lease after a host or handler error. After [Driver.Close] it
// still releases the plan's lease (nothing else) and returns ErrClosed.
func (d *Driver) FailTask(p TaskPlan) error {
	d.mu.Lock()
	defer d.unlock()
	d.b.FailTask(p)
	if d.closed {
		d.b.drain()
		return toolErr(ErrClosed, "the task board was closed; the plan's lease was released")
	}
	d.drain()
	return nil
}

// WaitForUser runs wait_for_user under the lock. After [Driver.Close] it returns ErrClosed.
func (d *Driver) WaitForUser(c Caller, reason string) (WaitResult, error) {
	d.mu.Lock()
	defer d.unlock()
	if d.closed {
		return WaitResult{}, toolErr(ErrClosed, "the task board was closed; no action was taken")
	}
	return d.b.WaitForUser(c, reason)
}

// View renders a parent's prompt view and remembers its Shown entries for the parent-idle
// acknowledgement. After [Driver.Close] it returns ErrClosed.
func (d *Driver) View(parentID string) (View, error) {
	d.mu.Lock()
	defer d.unlock()
	if d.closed {
		return View{}, toolErr(ErrClosed, "the task board was closed")
	}
	v := d.b.View(parentID)
	if len(v.shown) > 0 {
		d.shown[parentID] = v.shown
	} else {
		delete(d.shown, parentID)
	}
	return v, nil
}

// OnTerminal subscribes fn to Terminal notices. Subscribers run outside the lock on one
// delivery goroutine, one at a time, in the order the notices were emitted (a slow
// subscriber delays later notices, never reorders them); an error is logged and does not
// stop the others. No subscriber is called after [Driver.Close] returns.
func (d *Driver) OnTerminal(fn func(Notice) error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.onTerminal = append(d.onTerminal, fn)
}

// OnLaunched subscribes fn to Launched notices, like [Driver.OnTerminal].
func (d *Driver) OnLaunched(fn func(Notice) error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.onLaunched = append(d.onLaunched, fn)
}

// Close disposes the board (every later dispatch is withdrawn), stops every timer, cancels
// the contexts of pending host calls and delivers none of their settlements; leases stay
// exactly as they are and armed waits survive. Tool calls in progress return ErrClosed, and
// so does every later method call, which changes nothing (FinishTask and FailTask only
// release their plan's lease). Close drops undelivered notices and waits for a subscriber
// in progress and for the host-call goroutines to return.
func (d *Driver) Close() error {
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
	d.tracked = map[trackKey]bool{}
	d.shown = map[string][]shownEntry{}
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

// Pending returns how many machines are still running (for tests and inspection).
func (d *Driver) Pending() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.runs)
}
