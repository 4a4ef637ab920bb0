package gitguard

import (
	"context"
	"slices"

	"github.com/gitguard/gitguard/conflict"
	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/record"
)

// Replay says whether a runtime may run a call again after a resume.
type Replay string

// Replay verdicts.
const (
	ReplayAllowed    = Replay(record.VerdictAllowed)    // repeating it is harmless
	ReplayCheckFirst = Replay(record.VerdictCheckFirst) // look at the world before repeating it
	ReplayForbidden  = Replay(record.VerdictForbidden)  // never repeat it without asking the user
)

// ReplayVerdict combines a call's idempotency, status and replay policy
// (see record.VerdictOf).
func ReplayVerdict(e record.LedgerEntry) Replay { return Replay(record.VerdictOf(e)) }

// ResumeCall is one call as the resume brief reports it.
type ResumeCall struct {
	Entry   record.LedgerEntry
	Replay  Replay
	Applied []string // paths whose patch from this call is in place
	Absent  []string // reapplyable: the patch is not in place
	Changed []string // conflicted: changed by someone else since
	// Guessed are the paths only guessed to be its change (a call whose
	// process stopped with nothing to show when): undo leaves them unless
	// forced. Their reasons are in Resume.Paths.
	Guessed []string
	// MarkedUncertain is set when this resume found the call started and
	// marked it uncertain.
	MarkedUncertain bool
}

// Resume is the recovery state of a run.
type Resume struct {
	Run        record.RunID
	Checkpoint record.Entry
	LastStep   string
	Calls      []ResumeCall
	Paths      []record.PathStatus
	Unrecorded []record.Change
	// Since is the newest checkpoint that looked at the whole work tree:
	// Unrecorded holds what changed after it outside any call.
	Since  record.CheckpointID
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
	// A started call's process is gone: marked uncertain.
	run, stale, err := g.attributor().MarkStarted(ctx, run, entries, o.DryRun)
	if err != nil {
		return nil, err
	}
	status, err := g.status(ctx, run, StatusOptions{Unrecorded: true})
	if err != nil {
		return nil, err
	}
	if err := runread.VerifyObjects(g.db, run); err != nil {
		return nil, err
	}
	r := &Resume{Run: id, Checkpoint: record.Entry{Commit: run.Commit, Checkpoint: run.Checkpoint},
		LastStep: run.Checkpoint.StepID, Paths: status.Paths, Unrecorded: status.Unrecorded, Budget: run.Checkpoint.Budget,
		HeadMoves: status.HeadMoves, Git: status.Git, ViewChanges: status.ViewChanges}
	if err := g.resumeParallel(ctx, r, status); err != nil {
		return nil, err
	}
	if len(r.Unrecorded) > 0 {
		if r.Since, err = runread.LastWalk(ctx, g.store, id); err != nil {
			return nil, err
		}
	}
	// "Completed through" is the step of the newest call that finished.
	r.LastStep = runread.LastStep(entries, r.LastStep)
	byCall := map[record.CallID]map[record.Class][]string{}
	for _, p := range status.Paths {
		if byCall[p.Call] == nil {
			byCall[p.Call] = map[record.Class][]string{}
		}
		byCall[p.Call][p.State] = append(byCall[p.Call][p.State], p.Path)
	}
	OrderEntries(entries)
	for _, e := range entries {
		rc := ResumeCall{Entry: e, Replay: ReplayVerdict(e), MarkedUncertain: slices.Contains(stale, e.CallID)}
		if rc.MarkedUncertain && o.DryRun {
			rc.Entry.Status = record.StatusUncertain
			rc.Replay = ReplayVerdict(rc.Entry)
		}
		in := byCall[e.CallID]
		rc.Applied, rc.Absent, rc.Changed, rc.Guessed = in[conflict.Applied], in[conflict.Reapplyable], in[conflict.Conflicted], in[record.Guessed]
		r.Calls = append(r.Calls, rc)
	}
	return r, nil
}

// Compensation is a call whose external effects gitguard cannot revert.
type Compensation struct {
	Entry record.LedgerEntry
}

// Compensations lists the succeeded or uncertain non-idempotent calls
// finished after checkpoint since (all when nil), with their recorded
// compensation. Undo reverts files only; these effects stay.
func (g *Guard) Compensations(ctx context.Context, runID record.RunID, since *record.Entry) (record.RunID, []Compensation, error) {
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
