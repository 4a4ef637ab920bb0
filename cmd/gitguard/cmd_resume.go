package main

import (
	"context"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/brief"
	"github.com/gitguard/gitguard/protocol"
	"github.com/gitguard/gitguard/record"
	"github.com/urfave/cli/v2"
)

func newResumeCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "resume",
		Usage:     "verify the run and print the recovery brief for the model",
		UsageText: "gitguard resume [--run RUN] [--dry-run]",
		Description: "Loads the newest checkpoint of the run, verifies its objects and records, classifies\n" +
			"every path the agent touched against the work tree, marks every call found started\n" +
			"(its process is gone) uncertain, and prints a brief for the model: what succeeded\n" +
			"and is applied, what failed, what must not be replayed, what someone else changed.\n" +
			"--json gives the same facts for a runtime, with a replay verdict per call.",
		Flags: []cli.Flag{runFlag("the run `RUN`"), jsonFlag,
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "report without marking started calls uncertain"}},
		Action: func(c *cli.Context) error {
			run, err := runCommandArgs(c, e)
			if err != nil {
				return err
			}
			return runResume(c.Context, e, run, c.Bool("dry-run"))
		},
	}
}

func runResume(ctx context.Context, e *env, runID record.RunID, dry bool) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	pick, err := pickRun(ctx, e, g, runID)
	if err != nil {
		return err
	}
	r, err := g.Resume(ctx, pick.ID, gitguard.ResumeOptions{DryRun: dry})
	if err != nil {
		return err
	}
	warnSilentHook(e, g, r.Run, r.Checkpoint.Checkpoint, r.Unrecorded)
	if e.json {
		doc := protocol.NewResumeDoc(r)
		doc.RunPicked = picked(pick)
		return e.printJSON(doc)
	}
	e.printf("%s", brief.Text(r))
	return nil
}
