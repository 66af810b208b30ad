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
