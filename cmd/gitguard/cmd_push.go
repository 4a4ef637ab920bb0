package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/gitguard/gitguard"
	"github.com/urfave/cli/v2"
)

func newPushCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "push",
		Usage:     "send this repository's runs to a remote",
		UsageText: "gitguard push [--force] [-n] [REMOTE]",
		Description: "Pushes every run ref (refs/agent-checkpoints/runs/*) to the same name on\n" +
			"REMOTE (a remote name or URL; default origin) with git push. Nothing else is\n" +
			"pushed: no branches, no tags, no submodules. The remote refuses to move a run\n" +
			"that is not an ancestor of yours unless --force. Your pre-push hook runs, as\n" +
			"for any push. Checkpoints hold untracked files of the work tree too: push them\n" +
			"only where you would put the work tree itself.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: "overwrite remote runs that have diverged from yours"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "say what would be pushed, push nothing"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			remote, err := remoteArg(c)
			if err != nil {
				return err
			}
			wantJSON(c, e)
			return runPush(c.Context, e, syncOptions{remote: remote, force: c.Bool("force"), dryRun: c.Bool("dry-run")})
		},
	}
}

// errPushRejected reports runs the remote refused (exit 1).
var errPushRejected = errors.New("the remote rejected some runs")

func runPush(ctx context.Context, e *env, opts syncOptions) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	n, err := g.CountRunRefs(ctx)
	if err != nil {
		return err
	}
	var res []gitguard.PushResult
	if n > 0 {
		res, err = g.Push(ctx, opts.remote, gitguard.PushOptions{Force: opts.force, DryRun: opts.dryRun})
		if err != nil {
			return err
		}
	}
	rejected := 0
	out := jsonPush{Version: jsonVersion, Remote: opts.remote, DryRun: opts.dryRun, Runs: []jsonPushRun{}}
	for _, r := range res {
		id := r.Ref
		if run, ok := gitguard.RunOfRef(r.Ref); ok {
			id = string(run)
		}
		out.Runs = append(out.Runs, jsonPushRun{Run: id, Status: string(r.Status), Summary: r.Summary})
		if r.Status == gitguard.PushRejected {
			rejected++
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
	if rejected > 0 {
		return fmt.Errorf("push to %s: %w (%d of %d)", opts.remote, errPushRejected, rejected, len(res))
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
	Run     string `json:"run"`
	Status  string `json:"status"`
	Summary string `json:"git_summary,omitempty"`
}
