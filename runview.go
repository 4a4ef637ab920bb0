package gitguard

import (
	"fmt"
	"strings"

	"github.com/gitguard/gitguard/internal/undoplan"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// ViewChange says what one call changed of what gitguard sees.
type ViewChange struct {
	Call record.CallID
	What []string
}

// viewChangesOf lists the agent's calls that changed what gitguard sees,
// in the order given.
func viewChangesOf(calls []*patchstore.Call) []ViewChange {
	var out []ViewChange
	for _, c := range calls {
		if len(c.Ledger.ViewChanges) > 0 && !undoplan.IsUndoCall(c) { // an undo puts back what it changed
			out = append(out, ViewChange{Call: c.Ledger.CallID, What: c.Ledger.ViewChanges})
		}
	}
	return out
}

// String is the sentence status, resume and check print.
func (v ViewChange) String() string {
	return fmt.Sprintf("%s changed what gitguard sees: %s", v.Call, strings.Join(v.What, ", "))
}
