package taskboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/harnesskit/harnesskit/taskboard/store"
)

func shardKey(parent string) string { return "shards/" + parent }
func taskKey(id string) string      { return "tasks/" + id }

// shared is the state of a shared driver.
type shared struct {
	st        store.Store
	self      string
	base      *Board // the board between steps: empty, for options and timing
	seq       uint64
	fx        []func()          // effects of the step in progress; nil outside a step
	cur       []string          // scope of the step in progress
	vals      map[string][]byte // what the step in progress read
	homes     map[string]string // task → parent, from loaded shards and the index
	known     map[string]bool   // shards this driver served (reconciliation passes)
	hints     map[string][]string
	ctx       context.Context // cancelled by Close
	cancel    context.CancelFunc
	opTimeout time.Duration
}

// NewSharedDriver returns a driver whose board lives in st, shared with the drivers of
// other host processes; incarnation names this process's life. It behaves as [NewDriver]
// except as the package [store] describes.
func NewSharedDriver(st store.Store, incarnation string, h Host, o Options) (*Driver, error) {
	if st == nil {
		return nil, errors.New("taskboard: NewSharedDriver needs a Store")
	}
	if incarnation == "" || strings.Contains(incarnation, "/") {
		return nil, fmt.Errorf("taskboard: NewSharedDriver: incarnation %q must be non-empty and contain no slash", incarnation)
	}
	if err := h.check(); err != nil {
		return nil, err
	}
	b, err := NewBoard(o)
	if err != nil {
		return nil, err
	}
	d := newDriver(b, h)
	d.caps.shared = true
	ctx, cancel := context.WithCancel(context.Background())
	d.sh = &shared{st: st, self: incarnation, base: b, homes: map[string]string{}, known: map[string]bool{},
		hints: map[string][]string{}, ctx: ctx, cancel: cancel, opTimeout: 30 * time.Second}
	return d, nil
}

// TakeOver is [Board.ForceRelease] for a shared driver. Errors: ErrLeaseHeld while the
// holder's liveness key exists, ErrUnknownTask, ErrInvalidArgs, ErrClosed.
func (d *Driver) TakeOver(taskID, reason string) (Lease, error) {
	if d.sh == nil {
		return Lease{}, toolErr(ErrInvalidArgs, "TakeOver needs a shared driver; on one process use Board.ForceRelease inside Driver.Do")
	}
	if strings.TrimSpace(reason) == "" {
		return Lease{}, toolErr(ErrInvalidArgs, fmt.Sprintf("TakeOver of %s needs a reason for the audit log", taskID))
	}
	d.mu.Lock()
	defer d.unlock()
	if d.closed {
		return Lease{}, toolErr(ErrClosed, "the task board was closed; no action was taken")
	}
	parent := d.parentOf(taskID)
	if parent == "" {
		return Lease{}, toolErr(ErrUnknownTask, fmt.Sprintf("No live lease for %s; nothing was released", taskID))
	}
	var out Lease
	var err error
	serr := d.step(context.Background(), []string{parent}, func() error {
		l, ok := d.b.leases[taskID]
		switch {
		case !ok:
			out, err = Lease{}, toolErr(ErrUnknownTask, fmt.Sprintf("No live lease for %s; nothing was released", taskID))
		case l.Holder == d.sh.self || l.Holder == "" || d.sh.vals[store.LivenessPrefix+l.Holder] != nil:
			out, err = d.b.info(l), toolErr(ErrLeaseHeld, fmt.Sprintf("TakeOver of %s refused: its holder %s is alive (its liveness key exists) and will settle its call; take over only after it died", taskID, l.Holder))
		default:
			out, err = d.b.ForceRelease(taskID, fmt.Sprintf("taken over by %s from dead holder %s: %s", d.sh.self, l.Holder, reason))
			d.drain()
		}
		return nil
	})
	if serr != nil {
		return Lease{}, serr
	}
	return out, err
}

// step runs body on the board of scope's shards (lock held). A one-process driver runs it
// at once on its board. A shared driver loads the shards, runs body on copies of the
// machines and writes the shards back; on a conflict it runs body again from the
// originals, and it performs the step's effects (host calls, timers, replies,
// subscribers) only after the write committed. ctx nil means a background step (a reply,
// a timer, an event) that retries a failing store until Close.
func (d *Driver) step(ctx context.Context, scope []string, body func() error) error {
	if d.sh == nil {
		return body()
	}
	return d.sh.run(d, ctx, scope, body)
}

func (d *Driver) scope() []string {
	if d.sh == nil {
		return nil
	}
	return d.sh.cur
}

// callerScope is the shard of a tool machine's caller.
func callerScope(m machine) string {
	if so, ok := m.(sessionsOf); ok {
		return so.sessions()[0]
	}
	return ""
}

// eventScope returns the shards an event concerns, nil when a shared board never knew
// the session (lock held).
func (d *Driver) eventScope(ev HostEvent) []string {
	if d.sh == nil {
		return []string{""}
	}
	switch ev.Kind {
	case EventUserMessage, EventParentIdle:
		return []string{ev.SessionID}
	case EventDeleted:
		scope := []string{ev.SessionID}
		if p := d.parentOf(ev.SessionID); p != "" && p != ev.SessionID {
			scope = append(scope, p)
		}
		return scope
	}
	if p := d.parentOf(ev.SessionID); p != "" {
		return []string{p}
	}
	return nil
}

// parentOf returns the parent of a task on a shared board, "" when the index has none
// (lock held). While the store fails it tries again until Close, letting other steps run.
func (d *Driver) parentOf(id string) string {
	pause := 20 * time.Millisecond
	for {
		if p, ok := d.sh.homes[id]; ok {
			return p
		}
		ctx, cancel := context.WithTimeout(d.sh.ctx, d.sh.opTimeout)
		vals, err := d.sh.st.Get(ctx, taskKey(id))
		cancel()
		if err == nil {
			if vals[taskKey(id)] == nil {
				return ""
			}
			p := string(vals[taskKey(id)])
			d.sh.homes[id] = p
			return p
		}
		if d.sh.ctx.Err() != nil {
			return ""
		}
		d.mu.Unlock()
		time.Sleep(pause)
		d.mu.Lock()
		if d.closed {
			return ""
		}
		pause = min(2*pause, 2*time.Second)
	}
}

// reconcileShards starts a reconciliation pass on every shard this driver served that has
// none in flight (lock held).
func (d *Driver) reconcileShards() {
	for _, p := range sortedKeys(d.sh.known) {
		busy := false
		for r := range d.runs {
			if _, ok := r.m.(*reconcilePass); ok && len(r.scope) > 0 && r.scope[0] == p {
				busy = true
			}
		}
		if !busy {
			d.step(nil, []string{p}, func() error {
				d.start(newReconcilePass(d.caps))
				return nil
			})
		}
	}
}

// maxHomes bounds the driver's caches of the task index and of the keys each scope needs.
const maxHomes = 1 << 16

// needKeys is f's answer when the step needs keys it did not read: liveness keys of the
// holders of the loaded leases, index keys of new tasks.
type needKeys []string

func (n needKeys) Error() string { return "taskboard: step needs keys " + strings.Join(n, ", ") }

// stepError marks an error that came from the step itself, not from the store.
type stepError struct{ err error }

func (e stepError) Error() string { return e.err.Error() }
func (e stepError) Unwrap() error { return e.err }

type snapshot struct {
	runs   []*run
	ms     []machine
	closed []bool
	outbox int
}

func (d *Driver) snapshot() snapshot {
	s := snapshot{outbox: len(d.outbox)}
	for r := range d.runs {
		s.runs, s.ms, s.closed = append(s.runs, r), append(s.ms, r.m), append(s.closed, r.closed)
	}
	return s
}

// restore puts the driver back as it was at the snapshot; with fresh, every machine is a
// copy that the next attempt may change.
func (d *Driver) restore(s snapshot, fresh bool) {
	d.runs = make(map[*run]struct{}, len(s.runs))
	for i, r := range s.runs {
		d.runs[r] = struct{}{}
		r.m, r.closed = s.ms[i], s.closed[i]
		if fresh {
			r.m = s.ms[i].clone()
		}
	}
	d.outbox = d.outbox[:s.outbox]
}

func (s *shared) run(d *Driver, ctx context.Context, scope []string, body func() error) error {
	scope = dedupe(scope)
	if len(scope) == 0 || slices.Contains(scope, "") {
		return toolErr(ErrInvalidArgs, "a shared task board needs a parent session ID for this call")
	}
	background := ctx == nil
	if background {
		ctx = s.ctx
	} else {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.opTimeout)
		defer cancel()
		stop := context.AfterFunc(s.ctx, cancel)
		defer stop()
	}
	snap := d.snapshot()
	hint := strings.Join(scope, "\x00")
	keys := make([]string, 0, len(scope))
	for _, p := range scope {
		keys = append(keys, shardKey(p))
	}
	keys = append(keys, s.hints[hint]...)
	keys = dedupe(keys)
	pause := 20 * time.Millisecond
	for {
		var writeID string
		var home map[string]string
		actx, cancel := ctx, context.CancelFunc(func() {})
		if background {
			actx, cancel = context.WithTimeout(ctx, s.opTimeout) // a hung store call gives up and is retried
		}
		err := s.st.Update(actx, keys, func(vals map[string][]byte) (map[string][]byte, error) {
			d.restore(snap, true)
			s.fx, s.cur, s.vals = []func(){}, scope, vals
			s.seq++
			writeID = fmt.Sprintf("%s/%d", s.self, s.seq)
			w, h, err := s.attempt(d, keys, vals, scope, writeID, body)
			home = h
			return w, err
		})
		cancel()
		d.b, s.cur, s.vals = s.base, nil, nil
		var nk needKeys
		switch {
		case err == nil:
		case errors.As(err, &nk):
			keys = dedupe(append(keys, nk...))
			s.hints[hint] = keys[len(scope):]
			d.restore(snap, false)
			continue
		case errors.Is(err, store.ErrUncertain):
			if !s.landed(scope[0], writeID) {
				d.restore(snap, false)
				continue
			}
		default:
			d.restore(snap, false)
			s.fx = nil
			var se stepError
			if errors.As(err, &se) {
				return se.err
			}
			if s.ctx.Err() == nil && (background || ctx.Err() == nil) {
				// The store is failing (a partition, an election) and nothing was written:
				// try again until Close or the caller's deadline, letting other steps of this
				// process run meanwhile (they may fail too, or succeed on another shard).
				d.mu.Unlock()
				time.Sleep(pause)
				d.mu.Lock()
				if d.closed {
					return toolErr(ErrClosed, "the task board was closed; no action was taken")
				}
				pause = min(2*pause, 2*time.Second)
				snap = d.snapshot()
				continue
			}
			if s.ctx.Err() != nil {
				return toolErr(ErrClosed, "the task board was closed; no action was taken")
			}
			return toolErr(ErrHost, fmt.Sprintf("the shared task board's store failed (%v); nothing changed, try again", err))
		}
		if len(s.homes) > maxHomes {
			s.homes = map[string]string{} // a cache of the index: forget it rather than grow
		}
		if len(s.hints) > maxHomes {
			s.hints = map[string][]string{}
		}
		for id, p := range home {
			s.homes[id] = p
		}
		for _, p := range scope {
			s.known[p] = true
		}
		fx := s.fx
		s.fx = nil
		for _, f := range fx {
			f()
		}
		return nil
	}
}

// attempt is one run of a step on the values read (inside Store.Update).
func (s *shared) attempt(d *Driver, keys []string, vals map[string][]byte, scope []string, writeID string, body func() error) (map[string][]byte, map[string]string, error) {
	shards := map[string][]byte{}
	for _, p := range scope {
		shards[p] = vals[shardKey(p)]
	}
	b, home, err := loadShards(d.cfg, s.self, shards)
	if err != nil {
		return nil, nil, stepError{err}
	}
	b.disposed = d.closed
	read := map[string]bool{}
	for _, k := range keys {
		read[k] = true
	}
	var need needKeys
	for _, id := range sortedKeys(b.leases) {
		if h := b.leases[id].Holder; h != "" && h != s.self && !read[store.LivenessPrefix+h] {
			need = append(need, store.LivenessPrefix+h)
		}
	}
	if len(need) > 0 {
		return nil, nil, need
	}
	for _, id := range sortedKeys(b.leases) {
		l := b.leases[id]
		if l.Holder != "" && l.Holder != s.self && !l.Dispatched && vals[store.LivenessPrefix+l.Holder] == nil {
			b.ForceRelease(id, fmt.Sprintf("released automatically: holder %s is gone (its liveness key expired) and never dispatched its host call", l.Holder))
		}
	}
	d.b = b
	if err := body(); err != nil {
		return nil, nil, stepError{err}
	}
	d.drain()
	writes := map[string][]byte{}
	for _, id := range b.sortedIDs() {
		if _, ok := home[id]; ok {
			continue
		}
		r := b.records[id]
		k := taskKey(id)
		switch v, ok := vals[k]; {
		case !read[k]:
			need = append(need, k)
		case ok && string(v) != r.ParentID:
			return nil, nil, stepError{launchErr(ErrExists, id, fmt.Sprintf("the task is registered under another parent session (%s)", v))}
		case !ok:
			writes[k] = []byte(r.ParentID)
		}
		home[id] = r.ParentID
	}
	if len(need) > 0 {
		return nil, nil, need
	}
	enc, err := saveShards(b, home, scope, "", shards)
	if err != nil {
		return nil, nil, stepError{err}
	}
	changed := len(writes) > 0
	for p, data := range enc {
		if !sameShard(data, shards[p]) {
			changed = true
		}
	}
	if !changed {
		return nil, home, nil // a read-only step writes nothing
	}
	if enc, err = saveShards(b, home, scope, writeID, shards); err != nil {
		return nil, nil, stepError{err}
	}
	for p, data := range enc {
		writes[shardKey(p)] = data
	}
	return writes, home, nil
}

// sameShard reports whether an encoded shard equals the stored one (an absent shard
// equals an empty board's).
func sameShard(enc, stored []byte) bool {
	if len(stored) == 0 {
		stored = emptyShard
	}
	return string(enc) == string(stored)
}

var emptyShard, _ = json.Marshal(shardState{V: shardVersion})

// landed resolves an uncertain write by reading the shard back until the store answers
// (or Close): the write landed iff the shard remembers writeID.
func (s *shared) landed(parent, writeID string) bool {
	pause := 20 * time.Millisecond
	for {
		ctx, cancel := context.WithTimeout(s.ctx, s.opTimeout)
		vals, err := s.st.Get(ctx, shardKey(parent))
		cancel()
		if err == nil {
			return slices.Contains(shardWrites(vals[shardKey(parent)]), writeID)
		}
		if s.ctx.Err() != nil {
			return false
		}
		time.Sleep(pause)
		pause = min(2*pause, 2*time.Second)
	}
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	out := xs[:0:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
