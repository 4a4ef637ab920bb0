package main

import (
	"context"
	"fmt"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/protocol"
	"github.com/gitguard/gitguard/record"
)

type logOptions struct {
	run   record.RunID
	limit int
	// more says the limit is the default one: a note then tells that older
	// checkpoints were left out.
	more bool
}

// defaultPage is how many entries log and ledger show without -n or
// --all, so that they cost the same on a run of any length.
const defaultPage = 50

// pageFlags are the -n and --all flags of a command that shows the newest
// part of a run; what names its entries.
func pageFlags(what string) []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "max-count", Aliases: []string{"n", "limit"}, Usage: fmt.Sprintf("show at most `N` %s (default %d)", what, defaultPage)},
		&cli.BoolFlag{Name: "all", Usage: "show every one of the " + what},
	}
}

// pageLimit reads pageFlags: how many entries to show (0: all), and
// whether that is the default, in which case a note tells that older ones
// were left out.
func pageLimit(c *cli.Context) (limit int, isDefault bool, err error) {
	switch {
	case c.IsSet("max-count") && c.Bool("all"):
		return 0, false, usagef("%s takes -n or --all, not both", c.Command.Name)
	case c.IsSet("max-count") && c.Int("max-count") < 1:
		return 0, false, usagef("-n takes a number of at least 1 (--all shows everything)")
	case c.IsSet("max-count"):
		return c.Int("max-count"), false, nil
	case c.Bool("all"):
		return 0, false, nil
	}
	return defaultPage, true, nil
}

func newLogCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "log",
		Usage:     "list checkpoints, newest first",
		UsageText: "gitguard log [--run RUN] [-n N | --all]",
		Description: "Lists the checkpoints of the run (the active run; all runs when none is\n" +
			"active) newest first: id, commit, time, kind, step, changed paths, label.\n" +
			"Shows the newest 50 unless -n or --all says otherwise.",
		Flags: append([]cli.Flag{runFlag("list run `RUN`"), jsonFlag}, pageFlags("checkpoints")...),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			o := logOptions{run: record.RunID(c.String("run"))}
			var err error
			if o.limit, o.more, err = pageLimit(c); err != nil {
				return err
			}
			return runLog(c.Context, e, o)
		},
	}
}

func runLog(ctx context.Context, e *env, opts logOptions) error {
	g, err := e.openRecords(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	runs := []record.RunID{opts.run}
	if opts.run == "" {
		active, err := g.ActiveRun()
		if err != nil {
			return err
		}
		runs = []record.RunID{active}
		if active == "" {
			infos, err := g.ListRuns(ctx)
			if err != nil {
				return err
			}
			runs = runs[:0]
			for _, i := range infos {
				runs = append(runs, i.ID)
			}
		}
	}
	var all []record.Entry
	read := opts.limit
	if opts.more {
		read++ // one more, to know whether any was left out
	}
	for _, r := range runs {
		hist, err := g.History(ctx, r, read)
		if err != nil {
			return err
		}
		all = append(all, hist...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		return all[i].Checkpoint.CreatedAt.After(all[j].Checkpoint.CreatedAt)
	})
	cut := false
	if opts.limit > 0 && len(all) > opts.limit {
		all, cut = all[:opts.limit], true
	}
	if e.json {
		out := jsonLog{Version: jsonVersion, Checkpoints: []protocol.CheckpointDoc{}}
		for _, en := range all {
			out.Checkpoints = append(out.Checkpoints, protocol.NewCheckpointDoc(en))
		}
		return e.printJSON(out)
	}
	if len(all) == 0 {
		e.say("no checkpoints yet; record one with 'gitguard snapshot'")
		return nil
	}
	tw := tabwriter.NewWriter(e.text(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tID\tCOMMIT\tCREATED\tKIND\tSTEP\tCHANGED\tLABEL")
	for _, en := range all {
		cp := en.Checkpoint
		label := cp.Label
		if cp.CallID != "" && label == "" {
			label = "call " + string(cp.CallID)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", cp.RunID, cp.ID, en.Commit.Short(),
			cp.CreatedAt.UTC().Format(time.RFC3339), cp.Kind, dash(cp.StepID), cp.ChangedPaths, label)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if cut && opts.more {
		e.say("(the newest %d shown; 'gitguard log --all' or '-n N' for more)", opts.limit)
	}
	return nil
}

type jsonLog struct {
	Version     int                      `json:"version"`
	Checkpoints []protocol.CheckpointDoc `json:"checkpoints"`
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

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
			return runShow(c.Context, e, showOptions{run: record.RunID(c.String("run")), spec: c.Args().First()})
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
			fmt.Fprintf(tw, "%s:\t%s\n", k, v)
		}
	}
	row("checkpoint", cp.ID+" of run "+string(cp.RunID))
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

func changeStatus(c record.Change) string { return gitguard.ChangeLetter(c) }

// newestCheckpoint is the newest checkpoint of run, or of the active run,
// or of the run with the newest activity when none is active.
func newestCheckpoint(ctx context.Context, g *gitguard.Guard, run record.RunID) (record.Entry, error) {
	id, err := g.ResolveRun(ctx, run, true)
	if err != nil {
		return record.Entry{}, err
	}
	if id == "" {
		runs, err := g.ListRuns(ctx)
		if err != nil {
			return record.Entry{}, err
		}
		if len(runs) == 0 {
			return record.Entry{}, fmt.Errorf("%w: this repository has no runs yet", gitguard.ErrUnknownRun)
		}
		id = runs[0].ID
	}
	hist, err := g.History(ctx, id, 1)
	if err != nil {
		return record.Entry{}, err
	}
	return hist[0], nil
}
