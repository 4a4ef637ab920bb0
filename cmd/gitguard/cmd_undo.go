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

type undoOptions struct {
	run  record.RunID
	to   string
	redo bool
	gitguard.UndoOptions
}

func newUndoCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "undo",
		Usage:     "revert the agent's edits, keeping yours",
		UsageText: "gitguard undo [--run RUN] [--call CALL | --to CKPT | --all] [--dry-run] [--conflict refuse|markers] [--paths GLOB]\n   gitguard undo -i [--run RUN]   (the terminal view: gitguard ui)",
		Description: "Reverts the agent's file patches, newest first: by default the newest call that\n" +
			"still has a change undo can take out (a call whose paths all overlap your later\n" +
			"edits is passed over and reported, so repeating undo walks back through the run);\n" +
			"--call one call (found in any run when --run is not given); --to every patch after\n" +
			"checkpoint CKPT; --all the whole run. --run RUN only selects the run. Per path: applied -> the before\n" +
			"content and mode come back (a file the agent created is deleted, one it deleted\n" +
			"is recreated); reapplyable -> nothing to do; conflicted (you edited it too) -> a\n" +
			"three-way merge that takes the agent's hunks out and keeps yours. Where hunks\n" +
			"overlap the file is left as it is and reported (exit 1) unless --conflict markers.\n" +
			"Binary and symlink conflicts are always left alone. Before writing, the current\n" +
			"state of every planned path is recorded, so 'gitguard redo' puts back exactly what\n" +
			"undo changed; an undo that would change nothing records nothing. Folders the agent\n" +
			"created and the undo left empty are removed. Undo writes only the planned paths,\n" +
			"never the index, HEAD or branches; where the index still holds the agent's git add\n" +
			"or git rm it prints the git command that makes it agree.",
		Flags: []cli.Flag{runFlag("select run `RUN` (--all undoes all of it)"), jsonFlag,
			&cli.StringFlag{Name: "call", Usage: "undo call `CALL`"},
			&cli.StringFlag{Name: "to", Usage: "undo every patch recorded after checkpoint `CKPT`"},
			&cli.BoolFlag{Name: "all", Usage: "undo the whole run"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print the plan and write nothing"},
			&cli.StringFlag{Name: "conflict", Value: "refuse", Usage: "on overlapping hunks: refuse (leave the file) or markers"},
			&cli.StringSliceFlag{Name: "paths", Usage: "only paths matching `GLOB` (doublestar, repeatable)"},
			&cli.BoolFlag{Name: "interactive", Aliases: []string{"i"}, Usage: "choose what to undo in a terminal view (gitguard ui)"},
			&cli.BoolFlag{Name: "force", Usage: "also revert paths shared with another run's call that ran at the same time, and changes only guessed to be a killed call's"},
		},
		Action: func(c *cli.Context) error {
			if c.Bool("interactive") {
				return undoInteractive(c, e)
			}
			return undoAction(c, e, false)
		},
	}
}

// undoInteractive is "undo -i": the terminal view, which takes --run and
// --conflict; the other ways of choosing calls are its keys.
func undoInteractive(c *cli.Context, e *env) error {
	if err := noArgs(c); err != nil {
		return err
	}
	for _, f := range []string{"call", "to", "all", "dry-run", "paths", "json"} {
		if c.IsSet(f) {
			return usagef("undo -i chooses calls in the view; --%s does not go with it", f)
		}
	}
	o, err := uiFlags(c)
	if err != nil {
		return err
	}
	return runUI(c.Context, e, o)
}

func undoAction(c *cli.Context, e *env, redo bool) error {
	if err := noArgs(c); err != nil {
		return err
	}
	wantJSON(c, e)
	var p ids
	o := undoOptions{run: p.run(c.String("run")), redo: redo, UndoOptions: gitguard.UndoOptions{
		Call: p.call(c.String("call")), WholeRun: c.Bool("all"), DryRun: c.Bool("dry-run"), Globs: c.StringSlice("paths"),
		Force: c.Bool("force"),
	}}
	if p.err != nil {
		return p.err
	}
	if !redo {
		o.to = c.String("to")
	}
	switch c.String("conflict") {
	case "refuse":
	case "markers":
		o.Markers = true
	default:
		return usagef("--conflict takes refuse or markers, not %q", c.String("conflict"))
	}
	return runUndo(c.Context, e, o)
}

func runUndo(ctx context.Context, e *env, o undoOptions) error {
	shortLivedGC(e.getenv)
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	var pick gitguard.RunPick
	if o.Call != "" && !o.redo {
		if o.run, err = g.ResolveCallRun(ctx, o.run, o.Call); err != nil {
			return err
		}
	} else {
		if pick, err = pickRun(ctx, e, g, o.run); err != nil {
			return err
		}
		o.run = pick.ID
	}
	if o.to != "" {
		runID, err := g.ResolveRun(ctx, o.run, false)
		if err != nil {
			return err
		}
		en, err := g.ResolveCheckpoint(ctx, runID, o.to)
		if err != nil {
			return err
		}
		o.To = &en
	}
	validate, do := o.Validate, g.Undo
	if o.redo {
		validate, do = o.ValidateRedo, g.Redo
	}
	if err := validate(); err != nil {
		return err
	}
	res, err := do(ctx, o.run, o.UndoOptions)
	if res != nil {
		if perr := printUndo(e, res, pick); perr != nil && err == nil {
			err = perr
		}
		sayOperationBeforeHistory(ctx, e, g, res)
	}
	if err != nil {
		return err
	}
	if n := countUnrecoverable(res); n > 0 {
		msg := unrecoverableNote(n, g.MaxFileSize())
		if rest := res.Conflicts - n; rest > 0 {
			msg += "; " + (&protocol.ConflictsError{Paths: rest, DryRun: res.DryRun}).Error()
		}
		return &foundError{msg}
	}
	if res.Conflicts > 0 {
		return &foundError{(&protocol.ConflictsError{Paths: res.Conflicts, DryRun: res.DryRun}).Error()}
	}
	if res.Shared > 0 {
		return &foundError{fmt.Sprintf("%d path(s) left as they are: another run's call ran at the same time and may have made the change (--force reverts them)", res.Shared)}
	}
	if res.Uncertain > 0 {
		return &foundError{fmt.Sprintf("%d path(s) left as they are: only guessed to be the agent's change, made while nothing showed whether its process was still running (--force reverts them)", res.Uncertain)}
	}
	return nil
}

func printUndo(e *env, res *gitguard.UndoResult, pick gitguard.RunPick) error {
	if e.json {
		doc := protocol.NewUndoDoc(res)
		doc.RunPicked = picked(pick)
		return e.printJSON(doc)
	}
	for _, pc := range res.Passed {
		for _, it := range pc.Left {
			e.printf("passed over %s: %s left as it is (%s)\n", pc.Call, record.QuotePath(it.Path), it.Reason)
		}
	}
	verb := "undid"
	switch {
	case res.DryRun:
		verb = "would undo"
	case res.UndoCall == "":
		verb = "changed nothing undoing"
	case strings.HasPrefix(string(res.UndoCall), "redo-"):
		verb = "redid (undid the undo)"
	}
	if len(res.Undone) > 0 {
		e.printf("%s %v in run %s\n", verb, res.Undone, res.Run)
	}
	tw := tabwriter.NewWriter(e.text(), 0, 4, 2, ' ', 0)
	for _, it := range res.Items {
		line := fmt.Sprintf("  %s\t%s\t%s", it.Action, record.QuotePath(it.Path), it.State)
		if it.Reason != "" {
			line += "\t" + it.Reason
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, d := range res.RemovedDirs {
		e.printf("removed the empty folder %s the agent created\n", d)
	}
	for _, n := range res.IndexNotes {
		if strings.Contains(n.Fix, "'") {
			// A command with quotes of its own goes on a line of its own.
			e.printf("%s: the index still holds the agent's change; this makes it agree:\n\t%s\n", record.QuotePath(n.Path), n.Fix)
			continue
		}
		e.printf("%s: the index still holds the agent's change; '%s' makes it agree\n", record.QuotePath(n.Path), n.Fix)
	}
	printHeadMoves(e, res.HeadMoves, !res.DryRun)
	switch {
	case res.DryRun:
	case res.UndoCall == "":
		e.say("nothing was written or recorded; 'gitguard undo --call CALL' picks another call, --conflict markers writes conflict markers")
	case strings.HasPrefix(string(res.UndoCall), "redo-"):
		e.say("recorded as call %s; 'gitguard undo' takes the agent's edits out again", res.UndoCall)
	default:
		e.say("recorded as call %s; 'gitguard redo' puts it back", res.UndoCall)
	}
	return nil
}
