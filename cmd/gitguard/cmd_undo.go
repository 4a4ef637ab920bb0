package main

import (
	"github.com/gitguard/gitguard/patchstore/record"

	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
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
		UsageText: "gitguard undo [--call ID | --to CKPT | --run ID | --all] [--dry-run] [--conflict refuse|markers] [--paths GLOB]",
		Description: "Reverts the agent's file patches, newest first: by default the newest call with\n" +
			"file changes still in effect; --call one call; --to every patch after checkpoint\n" +
			"CKPT; --run ID alone (or --all) the whole run. Per path: applied -> the before\n" +
			"content and mode come back (a file the agent created is deleted, one it deleted\n" +
			"is recreated); reapplyable -> nothing to do; conflicted (you edited it too) -> a\n" +
			"three-way merge that takes the agent's hunks out and keeps yours. Where hunks\n" +
			"overlap the file is left as it is and reported (exit 1) unless --conflict markers.\n" +
			"Binary and symlink conflicts are always left alone. Before writing, the current\n" +
			"state of every planned path is recorded, so 'gitguard redo' puts back exactly what\n" +
			"undo changed. Undo writes only the planned paths, never the index, HEAD or branches.",
		Flags: []cli.Flag{runFlag("the run `ID`; given alone, undo all of it"), jsonFlag,
			&cli.StringFlag{Name: "call", Usage: "undo call `ID`"},
			&cli.StringFlag{Name: "to", Usage: "undo every patch recorded after checkpoint `CKPT`"},
			&cli.BoolFlag{Name: "all", Usage: "undo the whole run"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print the plan and write nothing"},
			&cli.StringFlag{Name: "conflict", Value: "refuse", Usage: "on overlapping hunks: refuse (leave the file) or markers"},
			&cli.StringSliceFlag{Name: "paths", Usage: "only paths matching `GLOB` (doublestar, repeatable)"},
			&cli.BoolFlag{Name: "force", Usage: "also revert paths shared with another run's call that ran at the same time"},
		},
		Action: func(c *cli.Context) error {
			return undoAction(c, e, false)
		},
	}
}

func newRedoCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "redo",
		Usage:     "put back what the newest undo changed",
		UsageText: "gitguard redo [--call UNDO_ID] [--run ID] [--dry-run]",
		Description: "Undoes the newest undo still in effect (or undo call UNDO_ID from 'gitguard ledger'),\n" +
			"restoring exactly the paths it changed. Edits made since the undo are kept as undo keeps them.",
		Flags: []cli.Flag{runFlag("the run `ID`"), jsonFlag,
			&cli.StringFlag{Name: "call", Usage: "redo undo call `ID`"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print the plan and write nothing"},
			&cli.StringFlag{Name: "conflict", Value: "refuse", Usage: "on overlapping hunks: refuse (leave the file) or markers"},
			&cli.StringSliceFlag{Name: "paths", Usage: "only paths matching `GLOB` (doublestar, repeatable)"},
		},
		Action: func(c *cli.Context) error {
			return undoAction(c, e, true)
		},
	}
}

func undoAction(c *cli.Context, e *env, redo bool) error {
	if err := noArgs(c); err != nil {
		return err
	}
	wantJSON(c, e)
	o := undoOptions{run: record.RunID(c.String("run")), redo: redo, UndoOptions: gitguard.UndoOptions{
		Call: record.CallID(c.String("call")), WholeRun: c.Bool("all"), DryRun: c.Bool("dry-run"), Globs: c.StringSlice("paths"),
		Force: c.Bool("force"),
	}}
	if !redo {
		o.to = c.String("to")
		// "undo --run ID" alone reverts the whole run ID; a run chosen
		// through GITGUARD_RUN (inside 'gitguard run') does not.
		if r := record.RunID(c.String("run")); r != "" && string(r) != e.getenv("GITGUARD_RUN") && o.Call == "" && o.to == "" {
			o.WholeRun = true
		}
	}
	switch c.String("conflict") {
	case "refuse":
	case "markers":
		o.Markers = true
	default:
		return usagef("--conflict takes refuse or markers, not %q", c.String("conflict"))
	}
	n := 0
	for _, set := range []bool{o.Call != "", o.to != "", o.WholeRun} {
		if set {
			n++
		}
	}
	if n > 1 {
		return usagef("give at most one of --call, --to and --all")
	}
	return runUndo(c.Context, e, o)
}

type jsonUndo struct {
	Version   int             `json:"version"`
	Run       record.RunID    `json:"run"`
	DryRun    bool            `json:"dry_run"`
	Undone    []record.CallID `json:"undone_calls"`
	UndoCall  record.CallID   `json:"undo_call,omitempty"`
	Commit    string          `json:"checkpoint_commit,omitempty"`
	Conflicts int             `json:"conflicts"`
	Shared    int             `json:"shared"`
	Paths     []jsonUndoItem  `json:"paths"`
}

type jsonUndoItem struct {
	Path    string          `json:"path"`
	State   string          `json:"state"`
	Action  string          `json:"action"`
	Calls   []record.CallID `json:"calls"`
	Current string          `json:"current"`
	Target  string          `json:"target"`
	Written bool            `json:"written"`
	Reason  string          `json:"reason,omitempty"`
}

func runUndo(ctx context.Context, e *env, o undoOptions) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
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
	do := g.Undo
	if o.redo {
		do = g.Redo
	}
	res, err := do(ctx, o.run, o.UndoOptions)
	if res != nil {
		if perr := printUndo(e, res); perr != nil && err == nil {
			err = perr
		}
	}
	if err != nil {
		return err
	}
	if res.Conflicts > 0 {
		return &foundError{fmt.Sprintf("%d path(s) conflicted: your edits overlap the agent's; resolve them by hand (see the list above)", res.Conflicts)}
	}
	if res.Shared > 0 {
		return &foundError{fmt.Sprintf("%d path(s) left as they are: another run's call ran at the same time and may have made the change (--force reverts them)", res.Shared)}
	}
	return nil
}

func printUndo(e *env, res *gitguard.UndoResult) error {
	if e.json {
		out := jsonUndo{Version: jsonVersion, Run: res.Run, DryRun: res.DryRun, Undone: res.Undone, UndoCall: res.UndoCall,
			Conflicts: res.Conflicts, Shared: res.Shared, Paths: []jsonUndoItem{}}
		if !res.Commit.IsZero() {
			out.Commit = res.Commit.String()
		}
		for _, it := range res.Items {
			out.Paths = append(out.Paths, jsonUndoItem{Path: it.Path, State: it.State.String(), Action: string(it.Action),
				Calls: it.Calls, Current: stateString(it.Current), Target: stateString(it.Target), Written: it.Written, Reason: it.Reason})
		}
		return e.printJSON(out)
	}
	verb := "undid"
	if res.UndoCall != "" && strings.HasPrefix(string(res.UndoCall), "redo-") {
		verb = "redid (undid the undo)"
	}
	if res.DryRun {
		verb = "would undo"
	}
	e.printf("%s %v in run %s\n", verb, res.Undone, res.Run)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, it := range res.Items {
		line := fmt.Sprintf("  %s\t%s\t%s", it.Action, it.Path, it.State)
		if it.Reason != "" {
			line += "\t" + it.Reason
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	switch {
	case res.DryRun || res.UndoCall == "":
	case strings.HasPrefix(string(res.UndoCall), "redo-"):
		e.say("recorded as call %s; 'gitguard undo' takes the agent's edits out again", res.UndoCall)
	default:
		e.say("recorded as call %s; 'gitguard redo' puts it back", res.UndoCall)
	}
	return nil
}

func init() {
	commandSets = append(commandSets, func(e *env) []*cli.Command {
		return []*cli.Command{newUndoCommand(e), newRedoCommand(e)}
	})
}
