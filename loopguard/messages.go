package loopguard

import "crypto/sha256"

// msgKey is what the guard keeps of a user message id: the first 16 bytes of its SHA-256,
// so a session's memory does not grow with the length of the ids a host sends.
type msgKey [16]byte

func messageKey(id string) msgKey {
	h := sha256.Sum256([]byte(id))
	return msgKey(h[:16])
}

// messageWindow is the set of the last distinct user message ids of a session, oldest
// forgotten first. The zero value is an empty window.
type messageWindow struct {
	ids   map[msgKey]struct{}
	order []msgKey // a ring once full: next is the oldest
	next  int
}

func (w *messageWindow) has(k msgKey) bool {
	_, ok := w.ids[k]
	return ok
}

// add records k, which must not be in the window, forgetting the oldest id when the
// window already holds max.
func (w *messageWindow) add(k msgKey, max int) {
	if w.ids == nil {
		w.ids = make(map[msgKey]struct{})
	}
	if len(w.order) < max {
		w.order = append(w.order, k)
	} else {
		delete(w.ids, w.order[w.next])
		w.order[w.next] = k
		w.next = (w.next + 1) % max
	}
	w.ids[k] = struct{}{}
}
