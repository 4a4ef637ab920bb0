package main

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

type startOptions struct {
	run        record.RunID
	checkpoint gitguard.CheckpointOptions
}

func newStartCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "start",
		Usage:     "start a run and make it the active one",
		UsageText: "gitguard start [--run RUN]",
		Description: "Starts run ID (a new id when none is given), records its first checkpoint\n" +
			"and makes it the active run of this worktree. Starting an existing run continues it.\n" +
			"The run id is printed on stdout.",
		Flags: flags([]cli.Flag{&cli.StringFlag{Name: "run", Usage: "the run `RUN` (default: a new id)"}, jsonFlag}, checkpointFlags()),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			var p ids
			o := startOptions{run: p.run(c.String("run")), checkpoint: checkpointOptions(c)}
			if p.err != nil {
				return p.err
			}
			return runStart(c.Context, e, o)
		},
	}
}

func runStart(ctx context.Context, e *env, opts startOptions) error {
	shortLivedGC(e.getenv)
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	run, err := g.StartRun(ctx, opts.run, opts.checkpoint)
	if err != nil {
		return err
	}
	if e.json {
		return e.printRecorded(run, true)
	}
	e.printf("%s\n", run.ID)
	e.say("started run %s (%s, %s)", run.ID, run.Checkpoint.ID, run.Commit.Short())
	return nil
}
