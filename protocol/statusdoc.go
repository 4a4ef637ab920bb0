package protocol

import (
	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/patchstore/record"
)

// StatusDoc classifies every path the run touched: the result of status.
type StatusDoc struct {
	Version    int          `json:"version"`
	Run        record.RunID `json:"run"`
	Checkpoint string       `json:"checkpoint"`
	Paths      []PathStatus `json:"paths"`
	Unrecorded []Change     `json:"unrecorded"`
	// AgentCommits are the calls during which the agent committed.
	AgentCommits []HeadMove `json:"agent_commits,omitempty"`
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
	// UndoneBy is the undo that took Call's change out; LastUndo the
	// newest undo that planned the path (one that left it conflicted,
	// when UndoneBy is empty).
	UndoneBy record.CallID `json:"undone_by,omitempty"`
	LastUndo record.CallID `json:"last_undo,omitempty"`
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
	out.AgentCommits = NewHeadMoves(rep.HeadMoves)
	return out
}

// newPathStatus is the document of p; with showFolder a folder standing
// where the file should be is "folder" rather than its recorded state.
func newPathStatus(p gitguard.PathStatus, showFolder bool) PathStatus {
	cur := StateString(p.Current)
	if showFolder && p.IsDir {
		cur = "folder"
	}
	return PathStatus{Path: p.Path, State: p.State.String(), Call: p.Call, Tool: p.Tool,
		Before: StateString(p.Before), After: StateString(p.After), Current: cur, Oversize: p.Oversize,
		UndoneBy: p.UndoneBy, LastUndo: p.LastUndo}
}

// StateString renders a file state as "MODE HASH", or "absent".
func StateString(s record.State) string {
	if !s.Exists() {
		return "absent"
	}
	return s.Mode.String() + " " + s.Hash.String()
}
