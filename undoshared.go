package gitguard

import (
	"fmt"
	"strings"

	"github.com/gitguard/gitguard/record"
)

// leaveShared turns the plan of a path that some patch shares with a call
// of another run into "left as it is": that call may have made the change,
// and undo never reverts what another call may own. UndoOptions.Force
// keeps the plan.
func leaveShared(it *UndoItem, patches []*record.FilePatch) {
	if !it.Writes() {
		return
	}
	var with []string
	seen := map[record.CallRef]bool{}
	for _, p := range patches {
		for _, r := range p.SharedWith {
			if !seen[r] {
				seen[r] = true
				with = append(with, fmt.Sprintf("call %s of run %s", r.Call, r.Run))
			}
		}
	}
	if len(with) == 0 {
		return
	}
	it.Action, it.Content, it.Target = ActionShared, nil, it.Current
	it.Reason = "shared with " + strings.Join(with, ", ") +
		", which ran at the same time and may have made this change; left as it is (--force reverts it)"
}
