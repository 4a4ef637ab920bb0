package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/patchstore/record"
	"github.com/gitguard/gitguard/protocol"
)

type statusOptions struct {
	run record.RunID
	gitguard.StatusOptions
}

func newStatusCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "classify every path the run touched: applied, reapplyable, conflicted",
		UsageText: "gitguard status [--run ID] [--call ID] [--no-unrecorded]",
		Description: "For every path the run's calls touched, compares the current file with the newest\n" +
			"patch for it: applied (current = the agent's after), reapplyable (current = before),\n" +
			"conflicted (neither: someone else changed it). Only touched paths are hashed.\n" +
			"It also lists changes since the newest checkpoint that no call recorded\n" +
			"(unrecorded), which walks the work tree; --no-unrecorded skips that walk.",
		Flags: []cli.Flag{runFlag("the run `ID`"), jsonFlag,
			&cli.StringFlag{Name: "call", Usage: "only the paths of call `ID`, against its own patch"},
			&cli.BoolFlag{Name: "no-unrecorded", Usage: "do not walk the work tree for unrecorded changes"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			return runStatus(c.Context, e, statusOptions{run: record.RunID(c.String("run")), StatusOptions: gitguard.StatusOptions{
				Call: record.CallID(c.String("call")), Unrecorded: !c.Bool("no-unrecorded") && record.CallID(c.String("call")) == ""}})
		},
	}
}

func runStatus(ctx context.Context, e *env, opts statusOptions) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	rep, err := g.Status(ctx, opts.run, opts.StatusOptions)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(protocol.NewStatusDoc(rep))
	}
	e.printf("run %s at %s\n", rep.Run, rep.Checkpoint.Checkpoint.ID)
	if len(rep.Paths) == 0 {
		e.printf("no paths touched by the agent\n")
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, p := range rep.Paths {
		fmt.Fprintf(tw, "  %s\t%s\t%s (%s)\n", p.State, p.Path, p.Call, p.Tool)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rep.Unrecorded) > 0 {
		e.printf("unrecorded (changed since %s, no call recorded it):\n", rep.Checkpoint.Checkpoint.ID)
		for _, c := range rep.Unrecorded {
			e.printf("  %s %s\n", changeStatus(c), c.Path)
		}
	}
	return nil
}
