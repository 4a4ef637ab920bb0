package main

import (
	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

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

func shortHash(h record.Hash) string {
	if h.IsZero() {
		return "(unborn)"
	}
	return h.Short()
}
