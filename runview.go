package gitguard

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/gitguard/gitguard/internal/undoplan"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// runView is the view run checkpoint cp's run started with; zero for runs
// of older writers, which snapshot with today's view.
func runView(cp *record.Checkpoint) record.Hash {
	if cp == nil || cp.View == nil {
		return record.ZeroHash
	}
	return cp.View.Start
}

// largerLimit is the larger of two size limits (-1 is no limit): a file is
// recorded by hash only if both the run's limit and today's say so.
func largerLimit(a, b int64) int64 {
	if a < 0 || b < 0 {
		return -1
	}
	return max(a, b)
}

// maxViewChanges bounds the view changes listed on one ledger entry.
const maxViewChanges = 64

// callViewChanges names what a call changed of what gitguard sees (see
// workspace.ViewChanges): the difference between the view the tip's
// snapshot saw and the one the call's finish saw (whole-workspace calls),
// and the .gitignore and .gitattributes files among its patches. Calls
// that overlap are compared with the tip, so a change is named once, on
// the call that finished first after it.
func (g *Guard) callViewChanges(tip *patchstore.Run, snap *workspace.Snapshot, patches []record.FilePatch) []string {
	var out []string
	if snap != nil && tip.Exists() && tip.Checkpoint.View != nil {
		names, err := g.ws.ViewChanges(tip.Checkpoint.View.Seen, snap.View)
		if err != nil {
			g.log.Warn("view changes not named", "err", err)
			names = []string{"the view (unreadable: " + err.Error() + ")"}
		}
		out = append(out, names...)
	}
	for _, p := range patches {
		if base := path.Base(p.Path); base == ".gitattributes" || base == ".gitignore" {
			out = append(out, record.QuotePath(p.Path))
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > maxViewChanges {
		out = append(out[:maxViewChanges-1], fmt.Sprintf("and %d more", len(out)-maxViewChanges+1))
	}
	return out
}

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
