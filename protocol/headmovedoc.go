package protocol

import (
	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// HeadMove is a call during which the agent committed (HEAD moved), with
// the git commands that drop or revert those commits: gitguard leaves
// history to the user.
type HeadMove struct {
	Call        record.CallID `json:"call"`
	Before      string        `json:"head_before"`
	After       string        `json:"head_after"`
	Ref         string        `json:"ref,omitempty"`
	Commits     []string      `json:"commits"`
	GitCommands []string      `json:"git_commands"`
}

// NewHeadMoves is the document of moves; nil when there are none.
func NewHeadMoves(moves []gitguard.HeadMove) []HeadMove {
	var out []HeadMove
	for _, m := range moves {
		commits := m.Commits
		if commits == nil {
			commits = []string{}
		}
		out = append(out, HeadMove{Call: m.Call, Before: m.Before.String(), After: m.After.String(), Ref: m.Ref,
			Commits: commits, GitCommands: m.GitCommands()})
	}
	return out
}
