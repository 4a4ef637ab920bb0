package protocol

import (
	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/brief"
	"github.com/gitguard/gitguard/record"
)

// ResumeDoc is the recovery facts of a run and the brief for the model:
// the result of resume.
type ResumeDoc struct {
	Version int          `json:"version"`
	Run     record.RunID `json:"run"`
	// RunPicked is set when no run was named and none was active: the
	// command read the newest run of this work tree.
	RunPicked  *RunPicked          `json:"run_picked,omitempty"`
	Checkpoint record.CheckpointID `json:"checkpoint"`
	Commit     string              `json:"commit"`
	LastStep   string              `json:"last_step,omitempty"`
	Calls      []ResumeCall        `json:"calls"`
	Paths      []PathStatus        `json:"paths"`
	Unrecorded []Change            `json:"unrecorded"`
	Budget     *Budget             `json:"budget,omitempty"`
	// FromOthers are changes calls of other sessions (runs of this work
	// tree) made; OpenElsewhere their calls running now, as "run/call".
	FromOthers    []OtherChange `json:"from_others,omitempty"`
	OpenElsewhere []string      `json:"open_elsewhere,omitempty"`
	Brief         string        `json:"brief"`
	// AgentCommits are the calls during which the agent committed.
	AgentCommits []HeadMove `json:"agent_commits,omitempty"`
	// Git is the merge, rebase or other git operation in progress.
	Git *GitOperation `json:"git,omitempty"`
	// ViewChanges are the calls that changed what gitguard sees.
	ViewChanges []ViewChange `json:"view_changes,omitempty"`
	// Since is the newest checkpoint that looked at the whole work tree:
	// Unrecorded is what changed after it outside any call.
	Since record.CheckpointID `json:"unrecorded_since,omitempty"`
}

// ResumeCall is one call of a ResumeDoc: its ledger entry, the replay
// verdict, and its paths by state.
type ResumeCall struct {
	CallRecord
	Replay      string   `json:"replay"`
	Applied     []string `json:"applied"`
	Reapplyable []string `json:"reapplyable"`
	Conflicted  []string `json:"conflicted"`
	// Uncertain are the paths only guessed to be its change (state
	// "uncertain"): undo leaves them unless forced.
	Uncertain       []string `json:"uncertain,omitempty"`
	MarkedUncertain bool     `json:"marked_uncertain,omitempty"`
}

// NewResumeDoc is the document of r.
func NewResumeDoc(r *gitguard.Resume) ResumeDoc {
	out := ResumeDoc{Version: DocVersion, Run: r.Run, Checkpoint: r.Checkpoint.Checkpoint.ID, Commit: r.Checkpoint.Commit.String(),
		LastStep: r.LastStep, Calls: []ResumeCall{}, Paths: []PathStatus{}, Unrecorded: []Change{}, Brief: brief.Text(r),
		AgentCommits: NewHeadMoves(r.HeadMoves), Since: r.Since, Git: NewGitOperation(r.Git),
		ViewChanges: NewViewChanges(r.ViewChanges)}
	for _, c := range r.Calls {
		out.Calls = append(out.Calls, ResumeCall{CallRecord: NewCallRecord(&record.Call{Ledger: c.Entry}), Replay: string(c.Replay),
			Applied: nonNil(c.Applied), Reapplyable: nonNil(c.Absent), Conflicted: nonNil(c.Changed), Uncertain: c.Guessed, MarkedUncertain: c.MarkedUncertain})
	}
	for _, p := range r.Paths {
		// The recovery brief reports what is recorded for a path, a folder
		// in its place included; status is the one that names the folder.
		out.Paths = append(out.Paths, newPathStatus(p, false))
	}
	for _, c := range r.Unrecorded {
		out.Unrecorded = append(out.Unrecorded, Change{Path: c.Path, Status: gitguard.ChangeLetter(c),
			Before: c.Before.Hash.String(), After: c.After.Hash.String()})
	}
	out.Budget = NewBudget(r.Budget)
	for _, o := range r.FromOthers {
		out.FromOthers = append(out.FromOthers, OtherChange{Path: o.Path, SeenBy: o.SeenBy, OwnedBy: o.By.String()})
	}
	out.OpenElsewhere = RefStrings(r.OpenElsewhere)
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
