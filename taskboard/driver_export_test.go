package taskboard

import "fmt"

// PendingKinds lists the machine types still running, for tests.
func (d *Driver) PendingKinds() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for r := range d.runs {
		out = append(out, fmt.Sprintf("%T replied=%t calls=%d timers=%d", r.m, r.m.Replied(), len(r.calls), len(r.timers)))
	}
	return out
}

// LeaseForTest returns the live lease of taskID with its token, for tests that play the
// holder.
func (b *Board) LeaseForTest(taskID string) (leaseGrant, bool) { return b.liveLease(taskID) }

// LeasesForTest returns every live lease with its token, sorted by task ID.
func (b *Board) LeasesForTest() []leaseGrant {
	out := make([]leaseGrant, 0, len(b.leases))
	for _, i := range b.LiveLeases() {
		out = append(out, b.leases[i.TaskID])
	}
	return out
}

// SizesForTest reports the sizes of the board's and the driver's per-task bookkeeping.
func (d *Driver) SizesForTest() map[string]int {
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.b
	return map[string]int{
		"records": len(b.records), "children": len(b.children), "aliasIdx": len(b.aliasIdx),
		"leases": len(b.leases), "leaseSince": len(b.leaseSince), "tombs": len(b.tombs),
		"epochs": len(b.epochs), "tombQ": len(b.tombQ), "waits": len(b.waits),
		"runs": len(d.runs), "tracked": len(b.tracked), "shown": len(b.shown),
	}
}

// EvidenceRunsForTest counts the evidence machines in flight for taskID.
func (d *Driver) EvidenceRunsForTest(taskID string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for r := range d.runs {
		if e, ok := r.m.(*evidence); ok && e.id == taskID {
			n++
		}
	}
	return n
}
