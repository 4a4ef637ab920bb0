package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// matchesFilter says whether call c touched a path matching f: a
// doublestar glob when f has glob characters, else a substring.
func matchesFilter(f string, c *record.Call) bool {
	if f == "" {
		return true
	}
	glob := strings.ContainsAny(f, "*?[{")
	for _, p := range c.Patches {
		if glob {
			if ok, _ := doublestar.Match(f, p.Path); ok {
				return true
			}
			if ok, _ := doublestar.Match("**/"+f, p.Path); ok {
				return true
			}
		} else if strings.Contains(p.Path, f) {
			return true
		}
	}
	return false
}

// callStatus is a call's status as a word: undone when an undo reverted it.
func callStatus(c *record.Call) string {
	if c.Ledger.UndoneBy != "" {
		return "undone"
	}
	return string(c.Ledger.Status)
}

// callTime is when the call finished, or started, as hh:mm:ss UTC.
func callTime(c *record.Call) string {
	t := c.Ledger.FinishedAt
	if t == nil {
		t = c.Ledger.StartedAt
	}
	if t == nil {
		t = c.Ledger.PlannedAt
	}
	if t == nil {
		return "--:--:--"
	}
	return t.UTC().Format(time.TimeOnly)
}

// pathState is the word for one path: its state against the call's patch,
// or what its undo plan found. "conflicted" only where undo would leave a
// conflict; "edited since" where the file changed after the call and undo
// merges (or, with no plan yet, may); "changed later" where a later call
// of the run changed it (later names it), which is no conflict of anyone's;
// "unrecoverable" where the before content was never stored.
func pathState(p record.CallPatch, plan *gitguard.UndoItem, later record.CallID) string {
	if plan != nil && plan.Action == gitguard.ActionUnrecoverable {
		return "unrecoverable"
	}
	if p.State != gitguard.Conflicted {
		return p.State.String()
	}
	switch {
	case later != "":
		return "changed later"
	case plan != nil && plan.Action == gitguard.ActionConflict:
		return "conflicted"
	}
	return "edited since"
}

// actionText says what undo would do to a path.
func actionText(it gitguard.UndoItem) string {
	var s string
	switch it.Action {
	case gitguard.ActionRestore:
		s = "restore the content from before"
	case gitguard.ActionDelete:
		s = "delete (the agent created it)"
	case gitguard.ActionRecreate:
		s = "recreate (the agent deleted it)"
	case gitguard.ActionMerge:
		s = "merge: the agent's hunks go, yours stay"
	case gitguard.ActionConflict:
		s = "conflict, nothing written"
	case gitguard.ActionSkip:
		s = "nothing to do (already as before)"
	case gitguard.ActionUnrecoverable:
		s = "cannot restore"
	default:
		s = string(it.Action)
	}
	if it.Reason != "" {
		// The view's key, not the CLI flag, turns markers on here.
		s += ": " + strings.ReplaceAll(it.Reason, "--conflict markers writes conflict markers", "m turns conflict markers on")
	}
	return s
}

// describeResult is the one-line report of a write.
func describeResult(c *confirmation, res *gitguard.UndoResult) string {
	written, left := 0, 0
	for _, it := range res.Items {
		if it.Written {
			written++
		} else if it.Action == gitguard.ActionConflict || it.Action == gitguard.ActionUnrecoverable {
			left++
		}
	}
	verb := "undid"
	if c.kind == redo {
		verb = "redid (undid the undo)"
	}
	s := fmt.Sprintf("%s %s: %d path(s) written", verb, record.JoinCallIDs(res.Undone, ", "), written)
	if left > 0 {
		s += fmt.Sprintf(", %d left conflicted (your edits overlap; m turns conflict markers on)", left)
	}
	if res.UndoCall != "" {
		s += "; recorded as " + string(res.UndoCall)
		if c.kind != redo {
			s += ", r puts it back"
		}
	}
	return s
}

// resultLines list what a write did to each path.
func resultLines(res *gitguard.UndoResult) []string {
	out := []string{"Result:"}
	for _, it := range res.Items {
		done := "left as it is"
		if it.Written {
			done = "written"
		}
		out = append(out, fmt.Sprintf("  %-9s %-13s %s  (%s)", it.Action, done, record.QuotePath(it.Path), it.State))
	}
	return out
}
