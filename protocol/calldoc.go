package protocol

import (
	"time"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// CallDoc is one call after it was recorded: the result of the call.* ops.
type CallDoc struct {
	Version    int                 `json:"version"`
	Run        record.RunID        `json:"run"`
	Checkpoint record.CheckpointID `json:"checkpoint"`
	Commit     string              `json:"commit"`
	Call       CallRecord          `json:"call"`
	Patches    []Patch             `json:"patches"`
}

// CallRecord is a call's ledger entry.
type CallRecord struct {
	CallID         record.CallID   `json:"call_id"`
	Step           string          `json:"step,omitempty"`
	Tool           string          `json:"tool"`
	InputHash      string          `json:"input_hash,omitempty"`
	Input          string          `json:"input,omitempty"`
	Status         string          `json:"status"`
	Idempotency    string          `json:"idempotency,omitempty"`
	ReplayPolicy   string          `json:"replay_policy,omitempty"`
	SideEffects    []string        `json:"side_effects,omitempty"`
	Compensation   string          `json:"compensation,omitempty"`
	ApprovedBy     string          `json:"approved_by,omitempty"`
	Decision       string          `json:"decision,omitempty"`
	DecisionReason string          `json:"decision_reason,omitempty"`
	PlannedAt      *time.Time      `json:"planned_at,omitempty"`
	StartedAt      *time.Time      `json:"started_at,omitempty"`
	FinishedAt     *time.Time      `json:"finished_at,omitempty"`
	Result         string          `json:"result,omitempty"`
	ResultRef      string          `json:"result_ref,omitempty"`
	ExitCode       *int            `json:"exit_code,omitempty"`
	Paths          []string        `json:"paths,omitempty"`
	Globs          []string        `json:"globs,omitempty"`
	Patches        int             `json:"patches"`
	Undoes         []record.CallID `json:"undoes,omitempty"`
	// UndoneBy is the undo call that reverted this call, while in effect.
	UndoneBy        record.CallID `json:"undone_by,omitempty"`
	UncertainReason string        `json:"uncertain_reason,omitempty"`
	// WindowEnd is, on a call whose process stopped without recording its
	// end, the evidence that ended the window of changes given to it.
	WindowEnd *WindowEnd `json:"window_end,omitempty"`
	// Skipped are the paths the call could not record; ViewChanges what
	// it changed of what gitguard sees.
	Skipped     []Skipped `json:"skipped,omitempty"`
	ViewChanges []string  `json:"view_changes,omitempty"`
}

// WindowEnd is the evidence that a killed call was over (record.WindowEnd).
type WindowEnd struct {
	// Kind is "checkpoint", "session-event", "new-session", "agent-exit",
	// or "none" (nothing bounded the window: its changes are guesses).
	Kind       string    `json:"kind"`
	At         time.Time `json:"at"`
	Checkpoint string    `json:"checkpoint,omitempty"`
	What       string    `json:"what,omitempty"`
}

// Patch is one file patch a call recorded.
type Patch struct {
	Path       string        `json:"path"`
	Change     string        `json:"change"` // A, M, D, T
	BeforeHash string        `json:"before_hash"`
	AfterHash  string        `json:"after_hash"`
	BeforeMode string        `json:"before_mode"`
	AfterMode  string        `json:"after_mode"`
	PatchRef   string        `json:"patch_ref"`
	Binary     bool          `json:"binary,omitempty"`
	Oversize   bool          `json:"oversize,omitempty"`
	Call       record.CallID `json:"call"`
	// Guess says why giving the change to the call is only a guess.
	Guess string `json:"guess,omitempty"`
}

// NewCallDoc is the document of call callID as run's tip records it.
func NewCallDoc(run *gitguard.Run, callID record.CallID) CallDoc {
	c := run.Calls[callID]
	if c == nil {
		c = &record.Call{Ledger: record.LedgerEntry{CallID: callID}}
	}
	return CallDoc{Version: DocVersion, Run: run.ID, Checkpoint: run.Checkpoint.ID, Commit: run.Commit.String(),
		Call: NewCallRecord(c), Patches: NewPatches(c.Patches)}
}

// NewCallRecord is the document of c's ledger entry.
func NewCallRecord(c *record.Call) CallRecord {
	l := c.Ledger
	out := CallRecord{
		CallID: l.CallID, Step: l.StepID, Tool: l.ToolName, InputHash: l.InputHash, Input: l.Input,
		Status: string(l.Status), Idempotency: string(l.Idempotency), ReplayPolicy: string(l.ReplayPolicy),
		SideEffects: l.SideEffects, Compensation: l.Compensation, PlannedAt: l.PlannedAt, StartedAt: l.StartedAt,
		FinishedAt: l.FinishedAt, Result: l.Result, ResultRef: l.ResultRef, ExitCode: l.ExitCode,
		Paths: l.Paths, Globs: l.Globs, Patches: len(c.Patches), Undoes: l.Undoes, UndoneBy: l.UndoneBy, UncertainReason: l.UncertainReason,
	}
	if a := l.Approval; a != nil {
		out.ApprovedBy, out.Decision, out.DecisionReason = a.By, a.Decision, a.Reason
	}
	if w := l.WindowEnd; w != nil {
		out.WindowEnd = &WindowEnd{Kind: w.Kind, At: w.At, What: w.What}
		if w.Seq > 0 {
			out.WindowEnd.Checkpoint = string(record.NewCheckpointID(w.Seq))
		}
	}
	for _, sk := range l.Skipped {
		out.Skipped = append(out.Skipped, Skipped{sk.Path, sk.Reason})
	}
	out.ViewChanges = l.ViewChanges
	return out
}

// NewPatch is the document of p.
func NewPatch(p record.FilePatch) Patch {
	return Patch{Path: p.Path, Change: PatchLetter(p), BeforeHash: p.BeforeHash.String(), AfterHash: p.AfterHash.String(),
		BeforeMode: p.BeforeMode.String(), AfterMode: p.AfterMode.String(), PatchRef: p.PatchRef.String(),
		Binary: p.Binary, Oversize: p.Oversize, Call: p.ToolCallID, Guess: p.Guess}
}

// NewPatches is the documents of ps, never nil (an empty list is "[]").
func NewPatches(ps []record.FilePatch) []Patch {
	out := []Patch{}
	for _, p := range ps {
		out = append(out, NewPatch(p))
	}
	return out
}

// PatchLetter is the one-letter kind of p: A added, D deleted, T mode or
// type only, M modified.
func PatchLetter(p record.FilePatch) string {
	switch {
	case !p.Before().Exists():
		return "A"
	case !p.After().Exists():
		return "D"
	case p.BeforeHash == p.AfterHash:
		return "T"
	}
	return "M"
}
