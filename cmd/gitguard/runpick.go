package main

import (
	"context"
	"time"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/protocol"
	"github.com/gitguard/gitguard/record"
)

// pickRun picks the run a reading command acts on (gitguard.PickRun) and,
// when none was named or active so that it is the newest run of this work
// tree, says which on stderr before anything else is printed, and that
// others ended at the same time, if so. The --json documents carry the
// same as run_picked (protocol.NewRunPicked).
func pickRun(ctx context.Context, e *env, g *gitguard.Guard, run record.RunID) (gitguard.RunPick, error) {
	p, err := g.PickRun(ctx, run)
	if err != nil || !p.Newest {
		return p, err
	}
	e.say("gitguard: no active run; using run %s, the newest of this work tree (ended %s)", p.ID, p.EndedAt.UTC().Format(time.RFC3339))
	if len(p.EndedWith) > 0 {
		e.say("gitguard: run(s) %s ended at the same time; --run names one", joinRunIDs(p.EndedWith))
	}
	return p, nil
}

// picked is the run_picked field of p.
func picked(p gitguard.RunPick) *protocol.RunPicked { return protocol.NewRunPicked(p) }
