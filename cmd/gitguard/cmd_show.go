package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/gitguard/gitguard/protocol"
	"github.com/gitguard/gitguard/record"
	"github.com/urfave/cli/v2"
)

type showOptions struct {
	run  record.RunID
	spec string
}

func newShowCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show one checkpoint's record and the paths it changed",
		UsageText: "gitguard show [--run RUN] [CKPT]",
		Description: "CKPT is a checkpoint id (ckpt_007, or 7) of the run, RUN/ckpt_007, or a\n" +
			"checkpoint commit id (at least 4 hex digits); without it, the run's newest\n" +
			"checkpoint.",
		Flags: []cli.Flag{runFlag("look in run `RUN`"), jsonFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usagef("show takes one checkpoint id, or none for the newest")
			}
			wantJSON(c, e)
			var p ids
			o := showOptions{run: p.run(c.String("run")), spec: c.Args().First()}
			if p.err != nil {
				return p.err
			}
			return runShow(c.Context, e, o)
		},
	}
}

func runShow(ctx context.Context, e *env, opts showOptions) error {
	g, err := e.openRecords(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	var en record.Entry
	if opts.spec == "" {
		en, err = newestCheckpoint(ctx, g, opts.run)
	} else {
		en, err = g.ResolveCheckpoint(ctx, opts.run, opts.spec)
	}
	if err != nil {
		return err
	}
	changes, err := g.CheckpointChanges(en.Checkpoint)
	if err != nil {
		return err
	}
	if e.json {
		out := protocol.NewCheckpointDoc(en)
		out.Changes = []protocol.Change{}
		for _, c := range changes {
			out.Changes = append(out.Changes, protocol.Change{Path: c.Path, Status: changeStatus(c),
				Before: c.Before.Hash.String(), After: c.After.Hash.String()})
		}
		return e.printJSON(out)
	}
	cp := en.Checkpoint
	tw := tabwriter.NewWriter(e.text(), 0, 4, 1, ' ', 0)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s:\t%s\n", k, record.Printable(v))
		}
	}
	row("checkpoint", string(cp.ID)+" of run "+string(cp.RunID))
	row("commit", en.Commit.String())
	row("kind", cp.Kind)
	row("created", cp.CreatedAt.UTC().Format(time.RFC3339Nano))
	row("step", cp.StepID)
	row("label", cp.Label)
	row("call", string(cp.CallID))
	head := "unborn"
	if !cp.Head.Commit.IsZero() {
		head = cp.Head.Commit.String()
	}
	if cp.Head.Ref != "" {
		head += " (" + cp.Head.Ref + ")"
	} else {
		head += " (detached)"
	}
	row("head", head)
	row("index tree", cp.IndexTree.String())
	wt := cp.WorktreeTree.String()
	if cp.Partial {
		wt += " (previous work tree plus the call's paths)"
	}
	row("worktree tree", wt)
	if !cp.Prev.IsZero() {
		row("previous", cp.Prev.String())
	}
	row("messages ref", cp.MessagesRef)
	row("approvals ref", cp.ApprovalsRef)
	row("trace ref", cp.TraceRef)
	if b := cp.Budget; !b.IsZero() {
		s := ""
		if b.Tokens != nil {
			s += fmt.Sprintf("%d tokens ", *b.Tokens)
		}
		if b.USD != nil {
			s += fmt.Sprintf("$%.2f ", *b.USD)
		}
		if b.Steps != nil {
			s += fmt.Sprintf("%d steps", *b.Steps)
		}
		row("budget", s)
	}
	if cp.RunFinished {
		row("run", "finished")
	}
	if s := cp.Settings; s != nil {
		row("settings", settingsLine(s))
	}
	row("changed paths", fmt.Sprint(len(changes)))
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range changes {
		e.printf("  %s %s\n", changeStatus(c), record.QuotePath(c.Path))
	}
	for _, o := range cp.Oversize {
		e.printf("  oversize %s (%d bytes, hash %s): not restorable\n", record.QuotePath(o.Path), o.Size, o.Hash.Short())
	}
	for _, s := range cp.Skipped {
		e.printf("  skipped %s: %s\n", record.QuotePath(s.Path), s.Reason)
	}
	printUnmerged(e, cp.Unmerged)
	return nil
}
