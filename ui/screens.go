package ui

import (
	"fmt"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// confirmLines is the confirmation that replaces the detail pane: what
// the write would do to each path, from its dry run, and the keys.
func (m *Model) confirmLines() []string {
	c := m.confirm
	var title string
	switch c.kind {
	case undoCall:
		title = fmt.Sprintf("Undo call %s (%s)?", clean(c.call.Ledger.CallID), clean(c.call.Ledger.ToolName))
	case undoTo:
		title = fmt.Sprintf("Undo %s and every newer call still in effect?", clean(c.call.Ledger.CallID))
	case redo:
		title = "Redo: put back what the undo took out?"
	}
	out := []string{m.st.title.Render(title)}
	switch {
	case !c.ready:
		return append(out, "working out what it would do (nothing is written yet)…")
	case c.err != nil:
		return append(out, m.st.err.Render(clean(errorText(c.err))), "", "esc: back")
	}
	calls := c.plan.Undone
	if c.kind == redo {
		out = append(out, fmt.Sprintf("Undoes %s, which undid %s.", clean(record.JoinCallIDs(calls, ", ")), clean(record.JoinCallIDs(m.undoneBy(calls), ", "))))
	} else {
		out = append(out, fmt.Sprintf("Calls: %s", clean(record.JoinCallIDs(calls, ", "))))
	}
	writes := 0
	for _, it := range c.plan.Items {
		if it.Action == gitguard.ActionRestore || it.Action == gitguard.ActionDelete || it.Action == gitguard.ActionRecreate ||
			it.Action == gitguard.ActionMerge || (it.Action == gitguard.ActionConflict && c.opts.Markers) {
			writes++
		}
	}
	out = append(out, fmt.Sprintf("It writes %d path(s) and nothing else; r can reverse it.", writes))
	for _, it := range c.plan.Items {
		state := it.State.String()
		switch it.Action {
		case gitguard.ActionMerge:
			state = "edited since" // conflicted only where undo leaves a conflict
		case gitguard.ActionConflict:
			state = "conflicted"
		}
		out = append(out, fmt.Sprintf("  %-12s %s: %s", state, clean(it.Path), clean(actionText(it))))
	}
	if c.plan.Conflicts > 0 {
		out = append(out, m.st.err.Render(fmt.Sprintf("%d path(s) conflict: your edits overlap the agent's there; they stay as they are%s.",
			c.plan.Conflicts, map[bool]string{true: " (markers on: written with conflict markers)", false: ""}[c.opts.Markers])))
	}
	return append(out, "", m.st.title.Render("y: yes, write it    n or esc: no"))
}

// undoneBy lists the calls the given undo calls reverted.
func (m *Model) undoneBy(undos []record.CallID) []record.CallID {
	var out []record.CallID
	for _, c := range m.calls {
		for _, u := range undos {
			if c.Ledger.CallID == u {
				out = append(out, c.Ledger.Undoes...)
			}
		}
	}
	return out
}

// helpLines is the help screen: every key, and what the path states mean.
func (m *Model) helpLines() []string {
	k := func(keys, what string) string { return fmt.Sprintf("  %-15s %s", keys, what) }
	return []string{
		m.st.title.Render("gitguard ui: the calls of a run, newest first"),
		k("↑/k  ↓/j", "select a newer / an older call"),
		k("pgup  pgdn", "a page up / down;  home/g end/G: newest / oldest"),
		k("tab", "arrows scroll the diff instead (tab again: back)"),
		k("ctrl+d  ctrl+u", "scroll the diff half a page down / up"),
		k("u", "undo the selected call, keeping your edits (asks first)"),
		k("U", "undo the selected call and every newer one (asks first)"),
		k("r", "redo: put back what an undo took out (asks first)"),
		k("m", "conflict markers on/off where your edits overlap"),
		k("/", "filter calls by path: a glob (src/**) or text; esc clears"),
		k("R", "switch run;  ?: this help;  q or ctrl+c: quit"),
		"",
		m.st.title.Render("Path states, against the call's own change"),
		k("applied", "the change is in place: undo restores the before"),
		k("reapplyable", "the file is as before the call: nothing to undo"),
		k("edited since", "changed since by someone else: undo merges, keeping their edits"),
		k("conflicted", "their edits overlap the agent's: undo leaves it as it is"),
		k("changed later", "a later call of the run changed it (its id is shown)"),
		k("merged", "undo would merge: the agent's hunks go, yours stay"),
		k("unrecoverable", "its before content was too big to keep"),
		"",
		"Every write asks first and is recorded as a call, so r reverses it.",
		"Press any key to go back.",
	}
}

// runLines is the run picker.
func (m *Model) runLines() []string {
	out := []string{m.st.title.Render("Runs, most recently active first (enter: open, esc: back)"), ""}
	if len(m.runs) == 0 {
		out = append(out, "  no runs recorded")
	}
	rows := max(m.height-3, 1)
	top := max(m.runSel-rows+1, 0)
	for i := top; i < len(m.runs) && i < top+rows; i++ {
		r := m.runs[i]
		marker := "  "
		if i == m.runSel {
			marker = "> "
		}
		state := "open"
		switch {
		case r.Active:
			state = "active"
		case r.Finished:
			state = "finished"
		}
		idW := max(m.width-2-1-8-1-11-2-16, 8)
		line := fmt.Sprintf("%s%s %-8s %5d ckpts  %s", marker, padCut(clean(r.ID), idW), state, r.Checkpoints, r.LastAt.UTC().Format("2006-01-02 15:04"))
		if i == m.runSel {
			line = m.st.selected.Render(line)
		}
		out = append(out, line)
	}
	return out
}
