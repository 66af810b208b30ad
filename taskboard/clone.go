package taskboard

import "maps"

// A shared driver runs a step on copies of its machines and keeps the copies only when
// the step's write committed; on a conflict it runs the step again from the originals.
// clone returns such a copy: the bookkeeping maps are copied, everything else is a value
// or read-only.

func (c *core) clone(i *ids) core {
	if i == nil {
		cp := *c.ids
		i = &cp
	}
	n := *c
	n.ids = i
	n.pending, n.awaiting, n.guard = maps.Clone(c.pending), maps.Clone(c.awaiting), maps.Clone(c.guard)
	n.timers = maps.Clone(c.timers)
	n.logs = append([]logLine(nil), c.logs...)
	return n
}

func (m *cancelM) clone() machine {
	c := *m
	c.core = m.core.clone(nil)
	return &c
}

func (m *messaging) clone() machine { c := *m; c.core = m.core.clone(nil); return &c }

func (m *reviveM) clone() machine {
	c := *m
	c.core = m.core.clone(nil)
	if m.inner != nil {
		in := *m.inner
		in.core = m.inner.core.clone(c.ids) // the cancel sub-machine shares the revive's IDs
		c.inner = &in
	}
	return &c
}

func (m *compensation) clone() machine  { c := *m; c.core = m.core.clone(nil); return &c }
func (m *notifyM) clone() machine       { c := *m; c.core = m.core.clone(nil); return &c }
func (m *statusM) clone() machine       { c := *m; c.core = m.core.clone(nil); return &c }
func (m *resultM) clone() machine       { c := *m; c.core = m.core.clone(nil); return &c }
func (m *reconcilePass) clone() machine { c := *m; c.core = m.core.clone(nil); return &c }
func (m *evidence) clone() machine      { c := *m; c.core = m.core.clone(nil); return &c }
func (m *supervise) clone() machine     { c := *m; c.core = m.core.clone(nil); return &c }
func (m *delayed) clone() machine       { c := *m; c.core = m.core.clone(nil); return &c }
