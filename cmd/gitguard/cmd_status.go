package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/protocol"
	"github.com/gitguard/gitguard/record"
)

type statusOptions struct {
	run      record.RunID
	exitZero bool
	gitguard.StatusOptions
}

func newStatusCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "classify every path the run touched: applied, reapplyable, conflicted, merged",
		UsageText: "gitguard status [--run RUN] [--call CALL] [--no-unrecorded] [--exit-zero]",
		Description: "For every path the run's agent calls touched, compares the current file with the\n" +
			"newest agent patch for it: applied (current = the agent's after), reapplyable\n" +
			"(current = before), conflicted (neither: someone else changed it, and their edits\n" +
			"overlap the agent's, so undo leaves it as it is), edited since (undo merges) (someone\n" +
			"else changed it elsewhere in the file: undo takes the agent's hunks out and keeps\n" +
			"theirs; --json says \"state\": \"conflicted\", \"undo\": \"merge\"), merged (an undo\n" +
			"took the agent's hunks out and kept someone else's), unrecoverable (the agent's\n" +
			"change is in place but a side of it was over max_file_size and recorded by hash\n" +
			"only, so undo leaves it as it is). A path an undo touched names\n" +
			"that undo. Only touched paths are hashed. It also lists changes since the newest\n" +
			"checkpoint that no call recorded (unrecorded), which walks the work tree;\n" +
			"--no-unrecorded skips that walk. --json gives per path what undo does to it\n" +
			"(\"undo\": restore, delete, merge, conflict or skip). Exits 1 when conflicted paths remain\n" +
			"(--exit-zero: 0 all the same).",
		Flags: []cli.Flag{runFlag("the run `RUN`"), jsonFlag,
			&cli.StringFlag{Name: "call", Usage: "only the paths of call `CALL`, against its own patch"},
			&cli.BoolFlag{Name: "no-unrecorded", Usage: "do not walk the work tree for unrecorded changes"},
			&cli.BoolFlag{Name: "exit-zero", Usage: "exit 0 even when conflicted paths remain"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			var p ids
			o := statusOptions{run: p.run(c.String("run")), exitZero: c.Bool("exit-zero"), StatusOptions: gitguard.StatusOptions{
				Call: p.call(c.String("call")), Unrecorded: !c.Bool("no-unrecorded") && c.String("call") == ""}}
			if p.err != nil {
				return p.err
			}
			return runStatus(c.Context, e, o)
		},
	}
}

func runStatus(ctx context.Context, e *env, opts statusOptions) error {
	shortLivedGC(e.getenv)
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	var pick gitguard.RunPick
	if opts.Call != "" {
		if opts.run, err = g.ResolveCallRun(ctx, opts.run, opts.Call); err != nil {
			return err
		}
	} else {
		if pick, err = pickRun(ctx, e, g, opts.run); err != nil {
			return err
		}
		opts.run = pick.ID
	}
	rep, err := g.Status(ctx, opts.run, opts.StatusOptions)
	if err != nil {
		return err
	}
	configNotice(ctx, e, g)
	warnSilentHook(e, g, rep.Run, rep.Checkpoint.Checkpoint, rep.Unrecorded)
	for _, r := range rep.OpenElsewhere {
		fmt.Fprintf(e.stderr, "gitguard: warning: call %s of run %s is running in this work tree now; an undo may race its edits\n", r.Call, r.Run)
	}
	conflicted := 0
	for _, p := range rep.Paths {
		if p.State == gitguard.Conflicted && p.Undo != gitguard.ActionMerge {
			conflicted++
		}
	}
	var found error
	if conflicted > 0 && !opts.exitZero {
		found = &foundError{fmt.Sprintf("%d path(s) conflicted: someone else's edits overlap what the agent wrote; undo leaves them as they are (see 'gitguard undo --dry-run')", conflicted)}
	}
	if e.json {
		doc := protocol.NewStatusDoc(rep)
		doc.RunPicked = picked(pick)
		if err := e.printJSON(doc); err != nil {
			return err
		}
		return found
	}
	e.printf("run %s at %s\n", rep.Run, rep.Checkpoint.Checkpoint.ID)
	printGitOperation(e, rep.Git)
	if len(rep.Paths) == 0 {
		e.printf("no paths touched by the agent\n")
	}
	tw := tabwriter.NewWriter(e.text(), 0, 4, 2, ' ', 0)
	for _, p := range rep.Paths {
		state := statusWord(p)
		line := fmt.Sprintf("  %s\t%s\t%s (%s)", state, record.QuotePath(p.Path), p.Call, p.Tool)
		if p.Uncertain {
			line = fmt.Sprintf("  %s\t%s\t%s (%s, uncertain)", state, record.QuotePath(p.Path), p.Call, p.Tool)
		}
		switch {
		case p.UndoneBy != "":
			line += fmt.Sprintf("\tundone by %s", p.UndoneBy)
		case p.LastUndo != "":
			line += fmt.Sprintf("\tleft by %s", p.LastUndo)
		}
		if p.Reason != "" {
			line += "\t" + p.Reason
		}
		if len(p.SharedWith) > 0 {
			line += "\tshared with " + strings.Join(protocol.RefStrings(p.SharedWith), ", ")
		}
		if p.Guess != "" {
			line += "\tonly a guess: " + p.Guess + "; undo leaves it (--force reverts it)"
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printStatusNotes(e, rep)
	printHeadMoves(e, rep.HeadMoves, false)
	if len(rep.Others) > 0 {
		e.printf("made by other runs' calls meanwhile (not this run's to undo):\n")
		for _, o := range rep.Others {
			e.printf("  %s\t%s (seen during %s)\n", record.QuotePath(o.Path), o.OwnedBy, o.ToolCallID)
		}
	}
	if len(rep.Unrecorded) > 0 {
		e.printf("unrecorded (changed since %s, no call recorded it):\n", rep.Checkpoint.Checkpoint.ID)
		for _, c := range rep.Unrecorded {
			e.printf("  %s %s\n", changeStatus(c), record.QuotePath(c.Path))
		}
	}
	return found
}

// statusWord is a path's state as the text says it: "conflicted" only
// where undo would leave a conflict; a path someone edited since, whose
// edits undo merges around the agent's, says so plainly.
func statusWord(p record.PathStatus) string {
	if p.State == gitguard.Conflicted && p.Undo == gitguard.ActionMerge {
		return "edited since (undo merges)"
	}
	return p.State.String()
}
