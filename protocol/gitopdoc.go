package protocol

import (
	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// GitOperation is the git operation in progress and the paths the index
// holds in conflict. Operation is "merge", "rebase", "cherry-pick",
// "revert", "am", "bisect", or empty for conflicts git marks no operation
// for (git stash pop or apply).
type GitOperation struct {
	Operation string         `json:"operation"`
	Unmerged  []UnmergedPath `json:"unmerged"`
}

// UnmergedPath is one path in conflict and its stages.
type UnmergedPath struct {
	Path     string  `json:"path"`
	Conflict string  `json:"conflict"` // as git status says: "both modified", "deleted by them", …
	Stages   []Stage `json:"stages"`
}

// Stage is one conflict entry: 1 the common ancestor, 2 ours, 3 theirs.
type Stage struct {
	Stage int    `json:"stage"`
	Mode  string `json:"mode"`
	Hash  string `json:"hash"`
}

// NewGitOperation is the document of op; nil when nothing is in progress.
func NewGitOperation(op *gitguard.GitOperation) *GitOperation {
	if !op.InProgress() {
		return nil
	}
	return newGitOperation(op.Operation, op.Unmerged)
}

// NewUnmerged is the document of a checkpoint's unmerged record; nil for none.
func NewUnmerged(u *record.Unmerged) *GitOperation {
	if u == nil {
		return nil
	}
	return newGitOperation(u.Operation, u.Paths)
}

func newGitOperation(op record.Operation, paths []record.UnmergedPath) *GitOperation {
	out := &GitOperation{Operation: string(op), Unmerged: []UnmergedPath{}}
	for _, p := range paths {
		up := UnmergedPath{Path: p.Path, Conflict: p.Conflict(), Stages: []Stage{}}
		for _, s := range p.Stages {
			up.Stages = append(up.Stages, Stage{Stage: s.Stage, Mode: s.Mode.String(), Hash: s.Hash.String()})
		}
		out.Unmerged = append(out.Unmerged, up)
	}
	return out
}
