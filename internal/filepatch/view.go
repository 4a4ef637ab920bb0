package filepatch

import (
	"fmt"
	"log/slog"
	"path"
	"slices"

	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// maxViewChanges bounds the view changes listed on one ledger entry.
const maxViewChanges = 64

// ViewChanges names what a call changed of what gitguard sees (see
// workspace.ViewChanges): the difference between the view the tip's
// snapshot saw and the one the call's finish saw (snap, for
// whole-workspace calls), and the .gitignore and .gitattributes files
// among its patches. Calls that overlap are compared with the tip, so a
// change is named once, on the call that finished first after it. A view
// it cannot read is named as such and logged, never an error.
func ViewChanges(ws *workspace.Workspace, log *slog.Logger, tip *patchstore.Run, snap *workspace.Snapshot, patches []record.FilePatch) []string {
	var out []string
	if snap != nil && tip.Exists() && tip.Checkpoint.View != nil {
		names, err := ws.ViewChanges(tip.Checkpoint.View.Seen, snap.View)
		if err != nil {
			log.Warn("view changes not named", "err", err)
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
