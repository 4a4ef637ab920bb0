package protocol

import (
	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// StatusDoc classifies every path the run touched: the result of status.
type StatusDoc struct {
	Version int          `json:"version"`
	Run     record.RunID `json:"run"`
	// RunPicked is set when no run was named and none was active: the
	// command read the newest run of this work tree.
	RunPicked  *RunPicked          `json:"run_picked,omitempty"`
	Checkpoint record.CheckpointID `json:"checkpoint"`
	Paths      []PathStatus        `json:"paths"`
	Unrecorded []Change            `json:"unrecorded"`
	// OpenElsewhere names, as "run/call", the calls of other runs of this
	// work tree running now: an undo may race what they write.
	OpenElsewhere []string `json:"open_elsewhere,omitempty"`
	// Others are changes seen during this run's shell calls that calls of
	// other runs made: not this run's to undo.
	Others []OtherChange `json:"others,omitempty"`
	// AgentCommits are the calls during which the agent committed.
	AgentCommits []HeadMove `json:"agent_commits,omitempty"`
	// Git is the merge, rebase or other git operation in progress.
	Git *GitOperation `json:"git,omitempty"`
	// Skipped are the paths the run's calls could not record.
	Skipped []SkippedPath `json:"skipped,omitempty"`
	// ViewChanges are the calls that changed what gitguard sees.
	ViewChanges []ViewChange `json:"view_changes,omitempty"`
	// MaxFileSize is the size limit in bytes (files larger are recorded
	// by hash only), given when a path is "unrecoverable" because of it.
	MaxFileSize int64 `json:"max_file_size,omitempty"`
}

// ViewChange says what a call changed of what gitguard sees: configuration
// keys, ignore and attribute files, index bits ("skip-worktree PATH").
type ViewChange struct {
	Call record.CallID `json:"call"`
	What []string      `json:"what"`
}

// NewViewChanges is the document of vs.
func NewViewChanges(vs []gitguard.ViewChange) []ViewChange {
	var out []ViewChange
	for _, v := range vs {
		out = append(out, ViewChange{Call: v.Call, What: v.What})
	}
	return out
}

// SkippedPath is a path a call could not record, and why.
type SkippedPath struct {
	Path   string        `json:"path"`
	Call   record.CallID `json:"call"`
	Reason string        `json:"reason"`
}

// OtherChange is a change a call of another run made.
type OtherChange struct {
	Path    string        `json:"path"`
	SeenBy  record.CallID `json:"seen_by,omitempty"` // this run's shell call it was seen in
	OwnedBy string        `json:"owned_by"`          // run/call
}

// RefStrings renders call references as "run/call".
func RefStrings(refs []record.CallRef) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.String())
	}
	return out
}

// PathStatus is one path of a StatusDoc or ResumeDoc.
type PathStatus struct {
	Path     string        `json:"path"`
	State    string        `json:"state"`
	Call     record.CallID `json:"call"`
	Tool     string        `json:"tool,omitempty"`
	Before   string        `json:"before"`
	After    string        `json:"after"`
	Current  string        `json:"current"`
	Oversize bool          `json:"oversize,omitempty"`
	// Reason says why the path is unrecoverable.
	Reason string `json:"reason,omitempty"`
	// UndoneBy is the undo that took Call's change out; LastUndo the
	// newest undo that planned the path (one that left it conflicted,
	// when UndoneBy is empty).
	UndoneBy record.CallID `json:"undone_by,omitempty"`
	LastUndo record.CallID `json:"last_undo,omitempty"`
	// SharedWith names, as "run/call", calls of other runs that ran at the
	// same time and may equally have made the change.
	SharedWith []string `json:"shared_with,omitempty"`
	// Uncertain: Call's process died; the change was attributed to it.
	Uncertain bool `json:"uncertain,omitempty"`
	// Guess says why attributing the change to Call is only a guess
	// (state "uncertain" while it is in place): undo leaves it unless
	// forced.
	Guess string `json:"guess,omitempty"`
	// Undo is what undoing Call does to the path: "restore", "delete",
	// "merge" (edited since; the merge keeps the other hunks), "conflict"
	// (the edits overlap: left as it is) or "skip" (nothing to do, or
	// left alone). Empty where it was not worked out.
	Undo string `json:"undo,omitempty"`
}

// NewStatusDoc is the document of rep.
func NewStatusDoc(rep *gitguard.StatusReport) StatusDoc {
	out := StatusDoc{Version: DocVersion, Run: rep.Run, Checkpoint: rep.Checkpoint.Checkpoint.ID,
		Paths: []PathStatus{}, Unrecorded: []Change{}}
	for _, p := range rep.Paths {
		out.Paths = append(out.Paths, newPathStatus(p, true))
	}
	for _, c := range rep.Unrecorded {
		out.Unrecorded = append(out.Unrecorded, Change{Path: c.Path, Status: gitguard.ChangeLetter(c),
			Before: c.Before.Hash.String(), After: c.After.Hash.String()})
	}
	out.OpenElsewhere = RefStrings(rep.OpenElsewhere)
	for _, o := range rep.Others {
		out.Others = append(out.Others, OtherChange{Path: o.Path, SeenBy: o.ToolCallID, OwnedBy: o.OwnedBy.String()})
	}
	out.AgentCommits = NewHeadMoves(rep.HeadMoves)
	out.Git = NewGitOperation(rep.Git)
	for _, s := range rep.Skipped {
		out.Skipped = append(out.Skipped, SkippedPath{Path: s.Path, Call: s.Call, Reason: s.Reason})
	}
	out.ViewChanges = NewViewChanges(rep.ViewChanges)
	for _, p := range rep.Paths {
		if p.State == gitguard.Unrecoverable && rep.MaxFileSize < 1<<62 {
			out.MaxFileSize = rep.MaxFileSize // the limit that made it so
		}
	}
	return out
}

// newPathStatus is the document of p; with showFolder a folder standing
// where the file should be is "folder" rather than its recorded state.
func newPathStatus(p record.PathStatus, showFolder bool) PathStatus {
	cur := StateString(p.Current)
	if showFolder && p.IsDir {
		cur = "folder"
	}
	return PathStatus{Path: p.Path, State: p.State.String(), Call: p.Call, Tool: p.Tool, Uncertain: p.Uncertain,
		Before: StateString(p.Before), After: StateString(p.After), Current: cur, Oversize: p.Oversize, Reason: p.Reason,
		UndoneBy: p.UndoneBy, LastUndo: p.LastUndo, SharedWith: RefStrings(p.SharedWith), Guess: p.Guess, Undo: string(p.Undo)}
}

// StateString renders a file state as "MODE HASH", or "absent".
func StateString(s record.State) string {
	if !s.Exists() {
		return "absent"
	}
	return s.Mode.String() + " " + s.Hash.String()
}
