// Package brief renders the recovery brief of a resumed run for the model:
// plain text, one fact per bullet, ending with what to do next.
//
// It reads only the facts gitguard.Guard.Resume gathered and changes
// nothing. Invariants: every bullet is one line (tool inputs, results and
// reasons are folded and cut); paths are quoted as git quotes them; a call
// whose changes were undone is said to be gone and never to be replayed
// blindly; the order of the bullets is the order of the facts given.
package brief

import (
	"fmt"
	"strings"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// Text renders the recovery brief of r for the model: specific, one fact per
// sentence, ending with what to do next.
func Text(r *gitguard.Resume) string {
	var b strings.Builder
	cp := r.Checkpoint.Checkpoint
	fmt.Fprintf(&b, "Resumed from checkpoint %s of run %s.", cp.ID, r.Run)
	if r.LastStep != "" {
		fmt.Fprintf(&b, " Completed through %s.", record.Printable(r.LastStep))
	}
	b.WriteString("\n")
	name := func(c gitguard.ResumeCall) string {
		s := fmt.Sprintf("%s (%s)", record.Printable(c.Entry.ToolName), c.Entry.CallID)
		if c.Entry.Input != "" {
			s += fmt.Sprintf(" `%s`", oneLine(c.Entry.Input, 120))
		}
		return s
	}
	byID := make(map[record.CallID]*record.LedgerEntry, len(r.Calls))
	for i := range r.Calls {
		byID[r.Calls[i].Entry.CallID] = &r.Calls[i].Entry
	}
	for _, c := range r.Calls {
		e := c.Entry
		if e.ToolName == gitguard.ToolUndo || e.ToolName == gitguard.ToolRedo {
			if line := undoLine(e, byID); line != "" {
				fmt.Fprintf(&b, "- %s\n", line)
			}
			continue
		}
		var s string
		switch e.Status {
		case record.StatusSucceeded:
			s = fmt.Sprintf("%s succeeded", name(c))
			if e.Result != "" {
				s += ": " + oneLine(e.Result, 200)
			}
		case record.StatusFailed:
			s = fmt.Sprintf("%s failed", name(c))
			if e.Result != "" {
				s += ": " + oneLine(e.Result, 200)
			}
		case record.StatusUncertain:
			s = fmt.Sprintf("%s is uncertain (it may or may not have happened)", name(c))
			if e.ChangesThrough > 0 && e.Patches > 0 {
				s += fmt.Sprintf("; its process stopped without recording its end, and what changed from its start to %s is attributed to it", record.NewCheckpointID(e.ChangesThrough))
				if w := e.WindowEnd; w.Bounded() && w.What != "" {
					s += fmt.Sprintf(" (the first sign that it was over: %s)", oneLine(w.What, 120))
				}
			}
		case record.StatusPlanned:
			s = fmt.Sprintf("%s was planned but not started", name(c))
		case record.StatusApproved:
			s = fmt.Sprintf("%s was approved but not started", name(c))
		case record.StatusDenied:
			s = fmt.Sprintf("%s was denied", name(c))
			if e.Approval != nil && e.Approval.Reason != "" {
				s += ": " + oneLine(e.Approval.Reason, 200)
			}
		default:
			s = fmt.Sprintf("%s is %s", name(c), e.Status)
		}
		if e.UndoneBy != "" {
			s += fmt.Sprintf("; its file changes were undone by %s and are gone", e.UndoneBy)
		} else if len(c.Applied) > 0 {
			s += fmt.Sprintf(" and is applied to %s", quotedList(c.Applied))
		}
		if len(c.Absent) > 0 && e.UndoneBy == "" {
			s += fmt.Sprintf("; its change to %s is not in place", quotedList(c.Absent))
		}
		if len(c.Guessed) > 0 && e.UndoneBy == "" {
			s += fmt.Sprintf("; the change to %s is only guessed to be its own (uncertain: %s), and undo leaves it unless forced",
				quotedList(c.Guessed), oneLine(guessOf(r, c.Guessed[0]), 200))
		}
		switch c.Replay {
		case gitguard.ReplayForbidden:
			idem := string(e.Idempotency)
			if idem == "" {
				idem = "not idempotent"
			}
			switch e.Status {
			case record.StatusDenied:
				s += " — do not run it."
			default:
				s += fmt.Sprintf(" and %s: do not replay it; ask the user.", idem)
			}
		case gitguard.ReplayCheckFirst:
			if e.Status == record.StatusSucceeded {
				s += " — do not repeat it."
			} else {
				s += " — check the current state before running it again."
			}
		default:
			switch {
			case e.UndoneBy != "":
				s += " — do that work again only if it is still wanted."
			case e.Status == record.StatusSucceeded:
				s += " — do not repeat it."
			default:
				s += " — it may be run again."
			}
		}
		if e.Compensation != "" && (e.Status == record.StatusSucceeded || e.Status == record.StatusUncertain) {
			s += fmt.Sprintf(" Its recorded compensation: %s.", oneLine(e.Compensation, 200))
		}
		fmt.Fprintf(&b, "- %s\n", s)
	}
	for _, m := range r.HeadMoves {
		fmt.Fprintf(&b, "- %s\n", m.Sentence())
	}
	for _, v := range r.ViewChanges {
		fmt.Fprintf(&b, "- %s; gitguard still records the work tree as the run started.\n", oneLine(v.String(), 500))
	}
	if r.Git.InProgress() {
		fmt.Fprintf(&b, "- %s\n", r.Git.Sentence())
	}
	for _, p := range r.Paths {
		switch {
		case p.State == gitguard.Conflicted && p.LastUndo != "" && p.UndoneBy == "":
			fmt.Fprintf(&b, "- %s was changed by someone else after %s, and %s left it as it is (conflicted); keep those changes.\n", record.QuotePath(p.Path), p.Call, p.LastUndo)
		case p.State == gitguard.Conflicted && p.Undo == gitguard.ActionMerge:
			fmt.Fprintf(&b, "- %s was also edited by someone else after %s; their edits do not overlap it, so undo would take out %s's edit alone (a merge); keep those changes.\n", record.QuotePath(p.Path), p.Call, p.Call)
		case p.State == gitguard.Conflicted:
			fmt.Fprintf(&b, "- %s was changed by someone else after %s (conflicted); keep those changes.\n", record.QuotePath(p.Path), p.Call)
		case p.State == gitguard.Merged:
			fmt.Fprintf(&b, "- %s holds someone else's changes; %s took out only the edit of %s (merged).\n", record.QuotePath(p.Path), p.UndoneBy, p.Call)
		}
	}
	parallelLines(&b, r)
	if n := len(r.Unrecorded); n > 0 {
		var ps []string
		for i, c := range r.Unrecorded {
			if i == 10 {
				ps = append(ps, fmt.Sprintf("and %d more", n-10))
				break
			}
			ps = append(ps, record.QuotePath(c.Path))
		}
		since := r.Since
		if since == "" {
			since = cp.ID
		}
		fmt.Fprintf(&b, "- Changed outside any recorded call since %s: %s.\n", since, strings.Join(ps, ", "))
	}
	if bu := r.Budget; !bu.IsZero() {
		var parts []string
		if bu.Tokens != nil {
			parts = append(parts, fmt.Sprintf("%d tokens", *bu.Tokens))
		}
		if bu.USD != nil {
			parts = append(parts, fmt.Sprintf("$%.2f", *bu.USD))
		}
		if bu.Steps != nil {
			parts = append(parts, fmt.Sprintf("%d steps", *bu.Steps))
		}
		fmt.Fprintf(&b, "Budget left at the checkpoint: %s.\n", strings.Join(parts, ", "))
	}
	if cp.MessagesRef != "" || cp.TraceRef != "" {
		fmt.Fprintf(&b, "Conversation: %s. Trace: %s.\n", dashIfEmpty(cp.MessagesRef), dashIfEmpty(cp.TraceRef))
	}
	b.WriteString("Plan the next step from these observations.\n")
	return b.String()
}

// undoLine is the brief's line for an undo or redo call: what it did for
// the user, or nothing when it changed no file.
func undoLine(e record.LedgerEntry, byID map[record.CallID]*record.LedgerEntry) string {
	targets := record.JoinCallIDs(e.Undoes, ", ")
	switch {
	case e.Status == record.StatusStarted || e.Status == record.StatusUncertain:
		return fmt.Sprintf("%s was taking out the file changes of %s for the user and did not finish; gitguard undo finishes it.", e.CallID, targets)
	case e.Patches == 0:
		return "" // it changed no file: nothing to tell
	case e.ToolName == gitguard.ToolRedo:
		var agent []record.CallID
		for _, u := range e.Undoes {
			if ue := byID[u]; ue != nil {
				agent = append(agent, ue.Undoes...)
			}
		}
		return fmt.Sprintf("%s undid %s: the file changes of %s are in effect again.", e.CallID, targets, record.JoinCallIDs(agent, ", "))
	case e.UndoneBy != "":
		return fmt.Sprintf("%s took out the file changes of %s, and %s put them back.", e.CallID, targets, e.UndoneBy)
	}
	return fmt.Sprintf("%s took out the file changes of %s for the user.", e.CallID, targets)
}

// oneLine folds text to one line (newlines and tabs become spaces) and
// cuts it to at most n characters, so that each fact stays one bullet.
func oneLine(s string, n int) string {
	s = record.Printable(strings.Join(strings.Fields(s), " "))
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// parallelLines writes the brief's lines about other sessions.
func parallelLines(b *strings.Builder, r *gitguard.Resume) {
	for _, o := range r.FromOthers {
		fmt.Fprintf(b, "- %s was changed by call %s of run %s, another session in this work tree: not this run's change; leave it to that session.\n", o.Path, o.By.Call, o.By.Run)
	}
	for _, p := range r.Paths {
		if len(p.SharedWith) == 0 {
			continue
		}
		var with []string
		for _, w := range p.SharedWith {
			with = append(with, fmt.Sprintf("call %s of run %s", w.Call, w.Run))
		}
		fmt.Fprintf(b, "- %s changed while %s and %s of another session both ran; either may have made the change (shared), so undo leaves it as it is.\n", p.Path, p.Call, strings.Join(with, ", "))
	}
	for _, o := range r.OpenElsewhere {
		fmt.Fprintf(b, "- Call %s of run %s, another session, is running in this work tree now: files may change under you.\n", o.Call, o.Run)
	}
}

// quotedList joins paths for a sentence, each quoted as text output quotes
// names (record.QuotePath).
func quotedList(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = record.QuotePath(p)
	}
	return strings.Join(q, ", ")
}

// guessOf returns why path's change is only guessed to be its call's.
func guessOf(r *gitguard.Resume, path string) string {
	for _, p := range r.Paths {
		if p.Path == path && p.Guess != "" {
			return p.Guess
		}
	}
	return "nothing shows when the call's process stopped"
}
