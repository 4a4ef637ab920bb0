package main

import (
	"context"

	"github.com/gitguard/gitguard/protocol"
	"github.com/gitguard/gitguard/record"
	"github.com/urfave/cli/v2"
)

func newCompensateCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "compensate",
		Usage:     "list external effects that undo cannot revert, with their compensation",
		UsageText: "gitguard compensate [--run RUN] [--since CKPT]",
		Description: "Lists the non-idempotent calls that succeeded (or may have: uncertain) after\n" +
			"checkpoint CKPT (the whole run by default), with the compensation the runtime\n" +
			"recorded. gitguard undo reverts files only; these effects stay until someone\n" +
			"compensates them by hand.",
		Flags: []cli.Flag{runFlag("the run `RUN`"), jsonFlag,
			&cli.StringFlag{Name: "since", Usage: "only calls finished after checkpoint `CKPT`"}},
		Action: func(c *cli.Context) error {
			run, err := runCommandArgs(c, e)
			if err != nil {
				return err
			}
			return runCompensate(c.Context, e, run, c.String("since"))
		},
	}
}

type jsonCompensate struct {
	Version int                   `json:"version"`
	Run     record.RunID          `json:"run"`
	Note    string                `json:"note"`
	Calls   []protocol.CallRecord `json:"calls"`
}

const compensateNote = "gitguard undo reverts file changes only; the external effects below are not undone by it"

func runCompensate(ctx context.Context, e *env, runID record.RunID, since string) error {
	g, err := e.openRecords(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	var sinceEntry *record.Entry
	if since != "" {
		id, err := g.ResolveRun(ctx, runID, false)
		if err != nil {
			return err
		}
		en, err := g.ResolveCheckpoint(ctx, id, since)
		if err != nil {
			return err
		}
		sinceEntry = &en
	}
	id, comps, err := g.Compensations(ctx, runID, sinceEntry)
	if err != nil {
		return err
	}
	if e.json {
		out := jsonCompensate{Version: jsonVersion, Run: id, Note: compensateNote, Calls: []protocol.CallRecord{}}
		for _, c := range comps {
			out.Calls = append(out.Calls, protocol.NewCallRecord(&record.Call{Ledger: c.Entry}))
		}
		return e.printJSON(out)
	}
	e.printf("%s.\n", compensateNote)
	if len(comps) == 0 {
		e.printf("no non-idempotent call with external effects in run %s\n", id)
		return nil
	}
	for _, c := range comps {
		l := c.Entry
		comp := l.Compensation
		if comp == "" {
			comp = "none recorded: ask the user"
		}
		e.printf("- %s (%s) %s", record.Printable(l.ToolName), l.CallID, l.Status)
		if len(l.SideEffects) > 0 {
			e.printf("; effects: %s", printableList(l.SideEffects))
		}
		e.printf("; compensation: %s\n", record.Printable(comp))
	}
	return nil
}
