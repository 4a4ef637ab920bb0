package protocol

import (
	"fmt"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// UndoDoc is an undo or redo and its plan, per path: the result of undo
// and redo (also when paths were left conflicted).
type UndoDoc struct {
	Version int          `json:"version"`
	Run     record.RunID `json:"run"`
	// RunPicked is set when no run was named and none was active: the
	// command read the newest run of this work tree.
	RunPicked *RunPicked      `json:"run_picked,omitempty"`
	DryRun    bool            `json:"dry_run"`
	Undone    []record.CallID `json:"undone_calls"`
	UndoCall  record.CallID   `json:"undo_call,omitempty"`
	Commit    string          `json:"checkpoint_commit,omitempty"`
	Conflicts int             `json:"conflicts"`
	// Shared counts the paths left as they are because a call of another
	// run ran at the same time and may have made the change.
	Shared int `json:"shared"`
	// Uncertain counts the paths left as they are because their change was
	// only guessed to be a killed call's.
	Uncertain int        `json:"uncertain,omitempty"`
	Paths     []UndoItem `json:"paths"`
	// Recorded is false when nothing was written and no undo call
	// recorded: a dry run, or a plan that changes no file.
	Recorded bool `json:"recorded"`
	// Passed lists the calls a plain undo passed over: every path of
	// theirs conflicts with later edits.
	Passed      []PassedCall `json:"passed_over,omitempty"`
	RemovedDirs []string     `json:"removed_dirs,omitempty"`
	IndexNotes  []IndexNote  `json:"index_notes,omitempty"`
	// AgentCommits are the undone calls during which the agent committed:
	// undo reverted their files, the commits stay in history.
	AgentCommits []HeadMove `json:"agent_commits,omitempty"`
}

// PassedCall is a call plain undo passed over, and its paths left.
type PassedCall struct {
	Call  record.CallID `json:"call"`
	Paths []UndoItem    `json:"paths"`
}

// IndexNote is a restored path the index disagrees with, and the git
// command that makes it agree (undo never writes the index).
type IndexNote struct {
	Path string `json:"path"`
	Fix  string `json:"fix"`
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
		Conflicts: res.Conflicts, Shared: res.Shared, Uncertain: res.Uncertain, Paths: []UndoItem{}}
	if !res.Commit.IsZero() {
		out.Commit = res.Commit.String()
	}
	out.Recorded = res.UndoCall != "" && !res.DryRun
	for _, it := range res.Items {
		out.Paths = append(out.Paths, undoItem(it))
	}
	for _, pc := range res.Passed {
		p := PassedCall{Call: pc.Call}
		for _, it := range pc.Left {
			p.Paths = append(p.Paths, undoItem(it))
		}
		out.Passed = append(out.Passed, p)
	}
	out.RemovedDirs = res.RemovedDirs
	out.AgentCommits = NewHeadMoves(res.HeadMoves)
	for _, n := range res.IndexNotes {
		out.IndexNotes = append(out.IndexNotes, IndexNote{Path: n.Path, Fix: n.Fix})
	}
	return out
}

func undoItem(it gitguard.UndoItem) UndoItem {
	return UndoItem{Path: it.Path, State: it.State.String(), Action: string(it.Action),
		Calls: it.Calls, Current: StateString(it.Current), Target: StateString(it.Target), Written: it.Written, Reason: it.Reason}
}

// ConflictsError reports an undo that left paths conflicted: the user's
// edits overlap the agent's. It is a finding (exit code 1), not a failure;
// the undo's document lists the paths.
type ConflictsError struct {
	Paths  int  // paths left conflicted or written with markers
	DryRun bool // the undo only planned
}

// Error says how many paths were left and what to do.
func (e *ConflictsError) Error() string {
	verb := "left"
	if e.DryRun {
		verb = "would be left"
	}
	return fmt.Sprintf("%d path(s) %s as they are: your edits overlap the agent's there (see the list above); "+
		"--conflict markers writes conflict markers to resolve by hand", e.Paths, verb)
}
