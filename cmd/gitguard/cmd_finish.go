package main

import (
	"context"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
	"github.com/urfave/cli/v2"
)

type finishOptions struct {
	run        record.RunID
	checkpoint gitguard.CheckpointOptions
}

func newFinishCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:        "finish",
		Usage:       "record a last checkpoint and end the active run",
		UsageText:   "gitguard finish [--run RUN]",
		Description: "Records a final checkpoint of the run, marks it finished and clears the active run.",
		Flags:       flags([]cli.Flag{runFlag("finish run `RUN` instead of the active one"), jsonFlag}, checkpointFlags()),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			var p ids
			o := finishOptions{run: p.run(c.String("run")), checkpoint: checkpointOptions(c)}
			if p.err != nil {
				return p.err
			}
			return runFinish(c.Context, e, o)
		},
	}
}

func runFinish(ctx context.Context, e *env, opts finishOptions) error {
	shortLivedGC(e.getenv)
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	run, err := g.FinishRun(ctx, opts.run, opts.checkpoint)
	if err != nil {
		return err
	}
	if e.json {
		return e.printRecorded(run, true)
	}
	e.printf("%s\n", run.Commit)
	e.say("finished run %s at %s", run.ID, run.Checkpoint.ID)
	return nil
}
