package undoplan

import (
	"slices"
	"strings"

	"github.com/gitguard/gitguard/record"
)

// leaveGuessed turns the plan of a path whose change was only guessed to
// be a killed call's (record.FilePatch.Guess: nothing bounded the call's
// window, so the change may be an edit made after its process died) into
// "left as it is": undo never deletes a file or reverts a change it only
// guesses the agent made. Selection.Force keeps the plan.
func leaveGuessed(it *record.Plan, patches []*record.FilePatch) {
	if !it.Writes() {
		return
	}
	var why []string
	for _, p := range patches {
		if p.Guess != "" && !slices.Contains(why, p.Guess) {
			why = append(why, p.Guess)
		}
	}
	if len(why) == 0 {
		return
	}
	it.Action, it.Content, it.Target = record.ActionUncertain, nil, it.Current
	it.Reason = "only guessed to be the agent's change (" + strings.Join(why, "; ") + "); left as it is (--force reverts it)"
}
