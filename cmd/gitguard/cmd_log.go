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
			run, err := runCommandArgs(c, e)
			if err != nil {
				return err
			}
			o := logOptions{run: run}
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
		label := record.Printable(cp.Label)
		if cp.CallID != "" && label == "" {
			label = "call " + string(cp.CallID)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", cp.RunID, cp.ID, en.Commit.Short(),
			cp.CreatedAt.UTC().Format(time.RFC3339), cp.Kind, dash(record.Printable(cp.StepID)), cp.ChangedPaths, label)
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
	// Read as every reader reads a run: a damaged one at its newest intact
	// checkpoint, with a warning.
	r, err := g.ReadRunCalls(ctx, id)
	if err != nil {
		return record.Entry{}, err
	}
	return record.Entry{Commit: r.Commit, Checkpoint: r.Checkpoint}, nil
}
