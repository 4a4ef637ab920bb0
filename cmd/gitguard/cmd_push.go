package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
	"github.com/urfave/cli/v2"
)

func newPushCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "push",
		Usage:     "send this repository's runs to a remote",
		UsageText: "gitguard push [--force] [-n] [--run RUN]... [--batch N] [REMOTE]\n   gitguard push --as NEW [--run RUN] [-n] [REMOTE]",
		Description: "Pushes run refs (refs/agent-checkpoints/runs/*; with --run only those runs)\n" +
			"to the same names on REMOTE (a remote name or URL; default gitguard.remote\n" +
			"from git config, a repository for runs only, else origin) with git push.\n" +
			"Nothing else is pushed: no branches, no tags, no submodules, never in the\n" +
			"same push as your own refs. Runs already up to date there are skipped; the\n" +
			"rest go in pushes of at most N refs (--batch, git config gitguard.pushBatch,\n" +
			"default 100), for hosts that limit the refs of one push. The remote refuses\n" +
			"to move a run that is not an ancestor of yours unless --force (which still\n" +
			"never replaces a run that moved after gitguard read it). Your pre-push hook\n" +
			"runs, as for any push. Checkpoints hold untracked files of the work tree\n" +
			"too: push them only where you would put the work tree itself.\n" +
			"With --as NEW, run RUN (default the active run) is copied here as a new run\n" +
			"NEW, whose checkpoints name RUN and its tip as their origin, and NEW alone\n" +
			"is pushed: how a run that another machine moved on meanwhile is published\n" +
			"without overwriting theirs. RUN itself is unchanged.\n" +
			"Exit 1 if the remote rejected or declined some runs.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: "overwrite remote runs that have diverged from yours"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "say what would be pushed, push nothing"},
			&cli.StringSliceFlag{Name: "run", Usage: "push only run `RUN` (repeatable)"},
			&cli.IntFlag{Name: "batch", Usage: "push at most `N` run refs per git push (default gitguard.pushBatch, else 100)"},
			&cli.StringFlag{Name: "as", Usage: "publish the run as a new run `NEW` (a copy naming its origin)"},
			&cli.BoolFlag{Name: "pre-push", Usage: "as git's pre-push hook: push the runs whose work is in the push git describes on stdin (REMOTE URL)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.Bool("pre-push") {
				if c.NArg() != 2 {
					return usagef("--pre-push takes the pre-push hook's two arguments, REMOTE and URL (got %d)", c.NArg())
				}
				wantJSON(c, e)
				return runPrePush(c.Context, e, c.Args().Get(0), c.Args().Get(1))
			}
			remote, err := remoteArg(c)
			if err != nil {
				return err
			}
			runs, err := runFlags(c)
			if err != nil {
				return err
			}
			batch := c.Int("batch")
			if c.IsSet("batch") && (batch < 1 || batch > gitguard.MaxPushBatch) {
				return usagef("--batch wants a number of refs from 1 to %d (got %d)", gitguard.MaxPushBatch, batch)
			}
			opts := syncOptions{remote: remote, force: c.Bool("force"), dryRun: c.Bool("dry-run"), batch: batch, runs: runs}
			if c.IsSet("as") {
				if opts.as, err = record.ParseRunID(c.String("as")); err != nil {
					return usagef("--as %q: %v", c.String("as"), err)
				}
				if len(runs) > 1 || opts.force {
					return usagef("--as publishes one run (--run RUN, default the active run) and takes no --force")
				}
			}
			wantJSON(c, e)
			return runPush(c.Context, e, opts)
		},
	}
}

// errPushRejected reports runs the remote would not move because its copy
// moved on (exit 1); errPushDeclined runs it refused by its own rule.
var (
	errPushRejected = errors.New("the remote's copy moved on")
	errPushDeclined = errors.New("the remote declined runs by its own rule")
)

func runPush(ctx context.Context, e *env, opts syncOptions) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	if opts.remote == "" && opts.fallbackRemote != "" {
		if opts.remote, err = g.ConfiguredRemote(ctx); err != nil {
			return err
		}
		if opts.remote == "" {
			opts.remote = opts.fallbackRemote
		}
	}
	if opts.remote, err = g.SyncRemote(ctx, opts.remote); err != nil {
		return err
	}
	n, err := g.CountRunRefs(ctx)
	if err != nil {
		return err
	}
	var res []gitguard.PushResult
	switch {
	case opts.as != "":
		var id record.RunID
		if len(opts.runs) == 1 {
			id = opts.runs[0]
		} else if id, err = g.ActiveRun(); err != nil {
			return err
		} else if id == "" {
			return usagef("--as: name the run to publish with --run RUN (no run is active)")
		}
		res, err = g.PublishAs(ctx, opts.remote, id, opts.as, gitguard.PushOptions{DryRun: opts.dryRun, Batch: opts.batch})
		if err != nil {
			return err
		}
	case n > 0:
		res, err = g.Push(ctx, opts.remote, gitguard.PushOptions{Force: opts.force, DryRun: opts.dryRun, Batch: opts.batch, Runs: opts.runs})
		if err != nil {
			return err
		}
	}
	var rejected, declined []gitguard.PushResult
	out := jsonPush{Version: jsonVersion, Remote: opts.remote, DryRun: opts.dryRun, Runs: []jsonPushRun{}}
	for _, r := range res {
		id := r.Ref
		if run, ok := gitguard.RunOfRef(r.Ref); ok {
			id = string(run)
		}
		jr := jsonPushRun{Run: id, Status: string(r.Status), Summary: r.Summary, Local: r.Local.String(), Message: r.Message}
		if !r.RemoteTip.IsZero() {
			jr.RemoteTip = r.RemoteTip.String()
		}
		out.Runs = append(out.Runs, jr)
		switch r.Status {
		case gitguard.PushRejected:
			rejected = append(rejected, r)
		case gitguard.PushDeclined:
			declined = append(declined, r)
		}
	}
	if e.json {
		if err := e.printJSON(out); err != nil {
			return err
		}
	} else if n == 0 {
		e.say("no runs to push")
	} else {
		tw := tabwriter.NewWriter(e.text(), 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "RUN\tSTATUS\tGIT")
		for _, r := range out.Runs {
			status := r.Status
			if opts.dryRun && status != string(gitguard.PushRejected) && status != "up-to-date" {
				status = "would " + status
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Run, status, r.Summary)
		}
		if opts.dryRun {
			e.say("dry run: nothing was pushed to %s", opts.remote)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return pushError(opts.remote, len(res), rejected, declined)
}

// pushError says in one line which runs the remote refused and why: for a
// run whose remote copy moved on, both tips; for runs declined by the
// remote's rule, the rule in the remote's own words.
func pushError(remote string, total int, rejected, declined []gitguard.PushResult) error {
	runName := func(r gitguard.PushResult) string {
		if id, ok := gitguard.RunOfRef(r.Ref); ok {
			return string(id)
		}
		return r.Ref
	}
	if len(declined) > 0 {
		rule := declined[0].Message
		if rule == "" {
			rule = declined[0].Summary
		}
		return fmt.Errorf("push to %s: %w (%d of %d, e.g. %s): %s", remote, errPushDeclined, len(declined), total, runName(declined[0]), sanitize(rule))
	}
	if len(rejected) > 0 {
		r := rejected[0]
		theirs := "another tip"
		if !r.RemoteTip.IsZero() {
			theirs = r.RemoteTip.Short()
		}
		more := ""
		if len(rejected) > 1 {
			more = fmt.Sprintf(" (and %d more runs)", len(rejected)-1)
		}
		return fmt.Errorf("push to %s: run %s: %w: the remote is at %s, yours at %s%s; 'gitguard fetch' to continue from theirs, or 'gitguard push --as NEW --run %s' to publish yours as a new run",
			remote, runName(r), errPushRejected, theirs, r.Local.Short(), more, runName(r))
	}
	return nil
}

type jsonPush struct {
	Version int           `json:"version"`
	Remote  string        `json:"remote"`
	DryRun  bool          `json:"dry_run,omitempty"`
	Runs    []jsonPushRun `json:"runs"`
}

type jsonPushRun struct {
	Run       string `json:"run"`
	Status    string `json:"status"`
	Summary   string `json:"git_summary,omitempty"`
	Local     string `json:"local"`
	RemoteTip string `json:"remote_tip,omitempty"` // before the push
	Message   string `json:"remote_message,omitempty"`
}

// runPrePush is "push --pre-push REMOTE URL", run by the pre-push hook
// 'hook install --pre-push' writes: it pushes, in a push of their own,
// the runs whose work is in the commits git is about to push (git's hook
// input on stdin), to gitguard.remote if set, else to where the user
// pushes. Each run goes at its tip as it is now, its newest checkpoint.
func runPrePush(ctx context.Context, e *env, remote, url string) error {
	input, err := io.ReadAll(io.LimitReader(e.stdin, 16<<20))
	if err != nil {
		return err
	}
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	runs, err := g.RunsInPush(ctx, input)
	g.Close()
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		e.say("gitguard: no run's work is in this push")
		return nil
	}
	if remote == "" {
		remote = url
	}
	// gitguard.remote, when set, takes the runs wherever the code goes.
	return runPush(ctx, e, syncOptions{remote: "", fallbackRemote: remote, runs: runs})
}
