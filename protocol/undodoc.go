package protocol

import (
	"fmt"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/patchstore/record"
)

// UndoDoc is an undo or redo and its plan, per path: the result of undo
// and redo (also when paths were left conflicted).
type UndoDoc struct {
	Version   int             `json:"version"`
	Run       record.RunID    `json:"run"`
	DryRun    bool            `json:"dry_run"`
	Undone    []record.CallID `json:"undone_calls"`
	UndoCall  record.CallID   `json:"undo_call,omitempty"`
	Commit    string          `json:"checkpoint_commit,omitempty"`
	Conflicts int             `json:"conflicts"`
	Paths     []UndoItem      `json:"paths"`
}

// UndoItem is one path of an UndoDoc.
type UndoItem struct {
	Path    string          `json:"path"`
	State   string          `json:"state"`
	Action  string          `json:"action"`
	Calls   []record.CallID `json:"calls"`
	Current string          `json:"current"`
	Target  string          `json:"target"`
	Written bool            `json:"written"`
	Reason  string          `json:"reason,omitempty"`
}

// NewUndoDoc is the document of res.
func NewUndoDoc(res *gitguard.UndoResult) UndoDoc {
	out := UndoDoc{Version: DocVersion, Run: res.Run, DryRun: res.DryRun, Undone: res.Undone, UndoCall: res.UndoCall,
		Conflicts: res.Conflicts, Paths: []UndoItem{}}
	if !res.Commit.IsZero() {
		out.Commit = res.Commit.String()
	}
	for _, it := range res.Items {
		out.Paths = append(out.Paths, UndoItem{Path: it.Path, State: it.State.String(), Action: string(it.Action),
			Calls: it.Calls, Current: StateString(it.Current), Target: StateString(it.Target), Written: it.Written, Reason: it.Reason})
	}
	return out
}

// ConflictsError reports an undo that left paths conflicted: the user's
// edits overlap the agent's. It is a finding (exit code 1), not a failure;
// the undo's document lists the paths.
type ConflictsError struct {
	Paths int // paths left conflicted or written with markers
}

// Error says how many paths were left and what to do.
func (e *ConflictsError) Error() string {
	return fmt.Sprintf("%d path(s) conflicted: your edits overlap the agent's; resolve them by hand (see the list above)", e.Paths)
}
