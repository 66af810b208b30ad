package loopguard

import (
	"errors"
	"strconv"
)

// ErrRefused is the category of every refusal returned by [Guard.Before] and
// [Guard.Preview]. Test for it with errors.Is; use errors.As with a *[RefusedError] for
// the details.
var ErrRefused = errors.New("loopguard: call refused")

// ErrInvalidOption is returned (wrapped) by [New] when an option is out of range, for
// example WithWarnAt(0) or a WarnAt above BlockAt.
var ErrInvalidOption = errors.New("loopguard: invalid option")

// ErrInvalidCall is returned (wrapped) by [Guard.Before], [Guard.Preview] and
// [Guard.After] for a [Call] whose Session or CallID is empty: such a call could never be
// counted, so a host that forgot to set them would otherwise get a guard that never
// fires. It is a bug in the host, not a refusal meant for the model.
var ErrInvalidCall = errors.New("loopguard: invalid call")

// Kind says which guard refused a call.
type Kind uint8

const (
	// KindLoop: a block tool repeated a call whose identical result was already seen
	// BlockAt times in a row.
	KindLoop Kind = iota + 1
	// KindWait: a wait tool was called again after WaitBlockAt completed wait calls in
	// the same turn.
	KindWait
)

// String returns "loop" or "wait".
func (k Kind) String() string {
	switch k {
	case KindLoop:
		return "loop"
	case KindWait:
		return "wait"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// RefusedError is the detail of a refusal. Its message is the one the reference plugin
// gives models, word for word, because models and hosts match on it.
type RefusedError struct {
	Kind    Kind
	Session string
	Tool    string // lower-cased
	Runs    int    // the count that triggered the refusal
}

// Error returns the refusal message for the model.
func (e *RefusedError) Error() string {
	n := strconv.Itoa(e.Runs)
	if e.Kind == KindWait {
		return `Refusing to execute "` + e.Tool + `": a wait tool has already completed ` + n +
			` times this turn and instructed you to end the turn. Do not call any more tools. Respond to the user in plain text and end your turn.`
	}
	return `Refusing to execute "` + e.Tool + `": this exact call (same tool, same arguments) has returned identical results ` + n +
		` times in a row and constitutes an infinite loop. Stop repeating it. Reassess your goal, make a different call, or produce your final answer.`
}

// Unwrap returns [ErrRefused], so that errors.Is(err, ErrRefused) holds.
func (e *RefusedError) Unwrap() error { return ErrRefused }
