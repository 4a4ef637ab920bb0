package main

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/protocol"
	"github.com/gitguard/gitguard/record"
)

type snapshotOptions struct {
	run        record.RunID
	checkpoint gitguard.CheckpointOptions
}

func newSnapshotCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "snapshot",
		Usage:     "record a checkpoint of HEAD, the index and the work tree",
		UsageText: "gitguard snapshot [--run RUN] [--step STEP] [--label TEXT]",
		Description: "Records HEAD, the index and the whole work tree (untracked files included,\n" +
			"ignored ones excluded) as a checkpoint of the run, and prints its commit id.\n" +
			"Without --run it uses the active run, starting one if there is none.\n" +
			"Nothing you own is written: not HEAD, branches, the index or the stash.",
		Flags: flags([]cli.Flag{runFlag("record into run `RUN`"), jsonFlag}, checkpointFlags()),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			var p ids
			o := snapshotOptions{run: p.run(c.String("run")), checkpoint: checkpointOptions(c)}
			if p.err != nil {
				return p.err
			}
			return runSnapshot(c.Context, e, o)
		},
	}
}

func runSnapshot(ctx context.Context, e *env, opts snapshotOptions) error {
	shortLivedGC(e.getenv)
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	run, walked, err := g.Snapshot(ctx, opts.run, opts.checkpoint)
	if err != nil {
		return err
	}
	return e.printRecorded(run, walked)
}

// printRecorded prints a newly recorded checkpoint: its commit id on stdout
// (or the JSON record) and a summary on stderr.
func (e *env) printRecorded(run *gitguard.Run, _ bool) error {
	entry := record.Entry{Commit: run.Commit, Checkpoint: run.Checkpoint}
	if e.json {
		return e.printJSON(protocol.NewCheckpointDoc(entry))
	}
	cp := run.Checkpoint
	e.printf("%s\n", run.Commit)
	e.say("recorded %s of run %s: %d changed path(s)", cp.ID, cp.RunID, cp.ChangedPaths)
	for _, o := range cp.Oversize {
		e.say("warning: %s (%d bytes) is over the size limit: recorded by hash only, undo cannot restore it", record.QuotePath(o.Path), o.Size)
	}
	for _, s := range cp.Skipped {
		e.say("warning: %s not recorded: %s", record.QuotePath(s.Path), s.Reason)
	}
	return nil
}
