package gitguard

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gitguard/gitguard/conflict"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// Replay says whether a runtime may run a call again after a resume.
type Replay string

// Replay verdicts.
const (
	ReplayAllowed    Replay = "allowed"     // repeating it is harmless
	ReplayCheckFirst Replay = "check-first" // look at the world before repeating it
	ReplayForbidden  Replay = "forbidden"   // never repeat it without asking the user
)

// ReplayVerdict combines a call's idempotency, status and replay policy.
// Unknown idempotency counts as conditional. A call that never started may
// run; a denied call never.
func ReplayVerdict(e record.LedgerEntry) Replay {
	idem := e.Idempotency
	if idem == "" {
		idem = record.Conditional
	}
	var v Replay
	switch e.Status {
	case record.StatusDenied:
		return ReplayForbidden
	case record.StatusPlanned, record.StatusApproved:
		v = ReplayAllowed
	case record.StatusFailed:
		v = map[record.Idempotency]Replay{record.Idempotent: ReplayAllowed,
			record.Conditional: ReplayCheckFirst, record.NonIdempotent: ReplayCheckFirst}[idem]
	default: // succeeded, uncertain, started
		v = map[record.Idempotency]Replay{record.Idempotent: ReplayAllowed,
			record.Conditional: ReplayCheckFirst, record.NonIdempotent: ReplayForbidden}[idem]
	}
	switch e.ReplayPolicy {
	case record.ReplayNever:
		v = ReplayForbidden
	case record.ReplayAsk:
		if v == ReplayAllowed {
			v = ReplayCheckFirst
		}
	}
	return v
}

// ResumeCall is one call as the resume brief reports it.
type ResumeCall struct {
	Entry   record.LedgerEntry
	Replay  Replay
	Applied []string // paths whose patch from this call is in place
	Absent  []string // reapplyable: the patch is not in place
	Changed []string // conflicted: changed by someone else since
	// MarkedUncertain is set when this resume found the call started and
	// marked it uncertain.
	MarkedUncertain bool
}

// Resume is the recovery state of a run.
type Resume struct {
	Run        record.RunID
	Checkpoint patchstore.Entry
	LastStep   string
	Calls      []ResumeCall
	Paths      []PathStatus
	Unrecorded []record.Change
	// Since is the newest checkpoint that looked at the whole work tree:
	// Unrecorded holds what changed after it outside any call.
	Since  string
	Budget *record.Budget
	// FromOthers are changes other sessions (calls of other runs of this
	// work tree) made; OpenElsewhere their calls running now.
	FromOthers    []OtherChange
	OpenElsewhere []record.CallRef
	// HeadMoves are the calls during which HEAD moved (the agent committed).
	HeadMoves []HeadMove
	// Git is the merge, rebase or other git operation in progress.
	Git *GitOperation
	// ViewChanges are the calls that changed what gitguard sees.
	ViewChanges []ViewChange
}

// ResumeOptions tune Resume.
type ResumeOptions struct {
	// DryRun reports without marking started calls uncertain.
	DryRun bool
}

// Resume loads the newest checkpoint of the run, verifies its objects and
// records, classifies every touched path against the workspace, marks every
// call found started (its process is gone) uncertain, and returns the facts
// for the recovery brief.
func (g *Guard) Resume(ctx context.Context, runID record.RunID, o ResumeOptions) (*Resume, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, err
	}
	run, err := g.readRunHead(ctx, runID)
	if err != nil {
		return nil, err
	}
	id := run.ID
	// The ledger entries from the run index; the calls status looks at are
	// read (and their objects checked) as status reads them.
	entries, err := g.store.LedgerEntries(run)
	if err != nil {
		return nil, err
	}
	var stale []record.CallID
	for _, e := range entries {
		if e.Status == record.StatusStarted {
			stale = append(stale, e.CallID)
		}
	}
	slices.Sort(stale)
	// A damaged run is read at its newest intact checkpoint and not
	// written to until 'gitguard fsck --repair' (see patchstore's damage.go).
	if len(stale) > 0 && !o.DryRun && run.Damage == nil {
		if run, err = g.markKilled(ctx, run, stale); err != nil {
			return nil, err
		}
		for i := range entries {
			if c := run.Calls[entries[i].CallID]; c != nil {
				entries[i] = c.Ledger
			}
		}
	}
	status, err := g.status(ctx, run, StatusOptions{Unrecorded: true})
	if err != nil {
		return nil, err
	}
	if err := g.verifyObjects(run); err != nil {
		return nil, err
	}
	r := &Resume{Run: id, Checkpoint: patchstore.Entry{Commit: run.Commit, Checkpoint: run.Checkpoint},
		LastStep: run.Checkpoint.StepID, Paths: status.Paths, Unrecorded: status.Unrecorded, Budget: run.Checkpoint.Budget,
		HeadMoves: status.HeadMoves, Git: status.Git, ViewChanges: status.ViewChanges}
	if err := g.resumeParallel(ctx, r, status); err != nil {
		return nil, err
	}
	if len(r.Unrecorded) > 0 {
		walked, err := g.store.NewestWhere(ctx, id, func(cp *record.Checkpoint) bool {
			return !cp.Partial && cp.Kind != record.KindLedger
		})
		if err != nil {
			return nil, err
		}
		r.Since = walked.Checkpoint.ID
	}
	// "Completed through" is the step of the newest call that finished,
	// not of a call still in flight when the run stopped.
	best := 0
	for _, e := range entries {
		if s := e.Status; (s == record.StatusSucceeded || s == record.StatusFailed) &&
			e.StepID != "" && e.FinishSeq > best {
			best, r.LastStep = e.FinishSeq, e.StepID
		}
	}
	byCall := map[record.CallID][]PathStatus{}
	for _, p := range status.Paths {
		byCall[p.Call] = append(byCall[p.Call], p)
	}
	OrderEntries(entries)
	for _, e := range entries {
		rc := ResumeCall{Entry: e, Replay: ReplayVerdict(e)}
		for _, s := range stale {
			if s == e.CallID {
				rc.MarkedUncertain = true
				if o.DryRun {
					rc.Entry.Status = record.StatusUncertain
					rc.Replay = ReplayVerdict(rc.Entry)
				}
			}
		}
		for _, p := range byCall[e.CallID] {
			switch p.State {
			case conflict.Applied:
				rc.Applied = append(rc.Applied, p.Path)
			case conflict.Reapplyable:
				rc.Absent = append(rc.Absent, p.Path)
			case conflict.Conflicted:
				rc.Changed = append(rc.Changed, p.Path)
			}
		}
		r.Calls = append(r.Calls, rc)
	}
	return r, nil
}

// verifyObjects checks that the run's trees and every object the records
// of the calls read name are present.
func (g *Guard) verifyObjects(run *patchstore.Run) error {
	cp := run.Checkpoint
	if !g.db.Has(cp.WorktreeTree) {
		return fmt.Errorf("%w: work tree %s of %s is missing", record.ErrCorrupt, cp.WorktreeTree.Short(), cp.ID)
	}
	if !g.db.Has(cp.IndexTree) {
		return fmt.Errorf("%w: index tree %s of %s is missing", record.ErrCorrupt, cp.IndexTree.Short(), cp.ID)
	}
	for _, c := range run.Calls {
		for _, p := range c.Patches {
			for _, st := range []record.State{p.Before(), p.After()} {
				if st.Exists() && st.Mode != record.ModeGitlink && !p.Oversize && !g.db.Has(st.Hash) {
					return fmt.Errorf("%w: blob %s of %s (call %s) is missing", record.ErrCorrupt, st.Hash.Short(), p.Path, c.Ledger.CallID)
				}
			}
			if !p.PatchRef.IsZero() && !g.db.Has(p.PatchRef) {
				return fmt.Errorf("%w: patch of %s (call %s) is missing", record.ErrCorrupt, p.Path, c.Ledger.CallID)
			}
		}
	}
	return nil
}

// Brief renders the recovery brief for the model: specific, one fact per
// sentence, ending with what to do next.
func (r *Resume) Brief() string {
	var b strings.Builder
	cp := r.Checkpoint.Checkpoint
	fmt.Fprintf(&b, "Resumed from checkpoint %s of run %s.", cp.ID, r.Run)
	if r.LastStep != "" {
		fmt.Fprintf(&b, " Completed through %s.", r.LastStep)
	}
	b.WriteString("\n")
	name := func(c ResumeCall) string {
		s := fmt.Sprintf("%s (%s)", c.Entry.ToolName, c.Entry.CallID)
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
		if e.ToolName == ToolUndo || e.ToolName == ToolRedo {
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
				s += fmt.Sprintf("; its process stopped without recording its end, and what changed from its start to %s is attributed to it", record.CheckpointID(e.ChangesThrough))
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
		switch c.Replay {
		case ReplayForbidden:
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
		case ReplayCheckFirst:
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
		case p.State == conflict.Conflicted && p.LastUndo != "" && p.UndoneBy == "":
			fmt.Fprintf(&b, "- %s was changed by someone else after %s, and %s left it as it is (conflicted); keep those changes.\n", record.QuotePath(p.Path), p.Call, p.LastUndo)
		case p.State == conflict.Conflicted:
			fmt.Fprintf(&b, "- %s was changed by someone else after %s (conflicted); keep those changes.\n", record.QuotePath(p.Path), p.Call)
		case p.State == conflict.Merged:
			fmt.Fprintf(&b, "- %s holds someone else's changes; %s took out only the edit of %s (merged).\n", record.QuotePath(p.Path), p.UndoneBy, p.Call)
		}
	}
	r.parallelLines(&b)
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
	case e.ToolName == ToolRedo:
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
	s = strings.Join(strings.Fields(s), " ")
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

// Compensation is a call whose external effects gitguard cannot revert.
type Compensation struct {
	Entry record.LedgerEntry
}

// Compensations lists the succeeded or uncertain non-idempotent calls
// finished after checkpoint since (all when nil), with their recorded
// compensation. Undo reverts files only; these effects stay.
func (g *Guard) Compensations(ctx context.Context, runID record.RunID, since *patchstore.Entry) (record.RunID, []Compensation, error) {
	run, calls, err := g.Ledger(ctx, runID)
	if err != nil {
		return "", nil, err
	}
	var out []Compensation
	for _, c := range calls {
		e := c.Ledger
		if e.Idempotency != record.NonIdempotent {
			continue
		}
		if e.Status != record.StatusSucceeded && e.Status != record.StatusUncertain && e.Status != record.StatusStarted {
			continue
		}
		if since != nil && e.FinishSeq != 0 && e.FinishSeq <= since.Checkpoint.Seq {
			continue
		}
		out = append(out, Compensation{Entry: e})
	}
	return run.ID, out, nil
}
