package conflict

import (
	"github.com/gitguard/gitguard/record"
)

// State is the class of one touched path (record.Class); the plan's code
// names it short.
type State = record.Class

// The classes (see record.Class).
const (
	Applied       = record.Applied
	Reapplyable   = record.Reapplyable
	Conflicted    = record.Conflicted
	Merged        = record.Merged
	Irrecoverable = record.Irrecoverable
)

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
