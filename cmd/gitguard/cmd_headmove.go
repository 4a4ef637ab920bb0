package main

import (
	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/git"
)

// jsonHeadMove is a call during which the agent committed (HEAD moved).
type jsonHeadMove struct {
	Call        string   `json:"call"`
	Before      string   `json:"head_before"`
	After       string   `json:"head_after"`
	Ref         string   `json:"ref,omitempty"`
	Commits     []string `json:"commits"`
	GitCommands []string `json:"git_commands"`
}

func toJSONHeadMoves(moves []gitguard.HeadMove) []jsonHeadMove {
	var out []jsonHeadMove
	for _, m := range moves {
		out = append(out, jsonHeadMove{Call: m.Call, Before: m.Before.String(), After: m.After.String(), Ref: m.Ref,
			Commits: nonNil(m.Commits), GitCommands: m.GitCommands()})
	}
	return out
}

// printHeadMoves lists the commits the agent made inside calls, and, after
// an undo, the git commands for the commits themselves (gitguard leaves
// history alone).
func printHeadMoves(e *env, moves []gitguard.HeadMove, undone bool) {
	for _, m := range moves {
		e.printf("commits made inside call %s (HEAD %s -> %s):\n", m.Call, shortHash(m.Before), m.After.Short())
		for _, c := range m.Commits {
			e.printf("  %s\n", c)
		}
		if !undone {
			continue
		}
		e.say("undo reverted the file changes of these commits in the work tree; the commits stay in history. For them, you may run:")
		for _, c := range m.GitCommands() {
			e.say("\t%s", c)
		}
	}
}

func shortHash(h git.Hash) string {
	if h.IsZero() {
		return "(unborn)"
	}
	return h.Short()
}
