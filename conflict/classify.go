package conflict

import (
	"fmt"

	"github.com/gitguard/gitguard/record"
)

// State is the class of one touched path.
type State int

// The classes.
const (
	// Applied: the current content is the agent's after state.
	Applied State = iota
	// Reapplyable: the current content is the agent's before state.
	Reapplyable
	// Conflicted: neither; someone else changed the path.
	Conflicted
	// Merged: someone else changed the path too, and a three-way merge
	// takes (or took) the agent's hunks out and keeps theirs.
	Merged
	// Irrecoverable ("unrecoverable"): the agent's change is in place,
	// but the content undo would need was over the size limit and recorded
	// by hash only (see OversizeLoss). Classify never returns it; status
	// reports it, and undo plans the Unrecoverable action for it.
	Irrecoverable
)

var names = [...]string{"applied", "reapplyable", "conflicted", "merged", "unrecoverable"}

// String returns "applied", "reapplyable", "conflicted", "merged" or
// "unrecoverable".
func (s State) String() string {
	if int(s) < len(names) {
		return names[s]
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// MarshalText encodes the state by name.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Classify classifies the current state of a path against a patch's before
// and after states. Mode counts: a file whose content is the agent's but
// whose executable bit differs is conflicted.
func Classify(before, after, current record.State) State {
	switch current {
	case after:
		return Applied
	case before:
		return Reapplyable
	}
	return Conflicted
}
