package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
)

func init() {
	commandSets = append(commandSets, func(e *env) []*cli.Command {
		return []*cli.Command{newPushCommand(e), newFetchCommand(e)}
	})
}

type syncOptions struct {
	remote string
	force  bool
	dryRun bool
}

func remoteArg(c *cli.Context) (string, error) {
	switch c.NArg() {
	case 0:
		return "origin", nil
	case 1:
		return c.Args().First(), nil
	}
	return "", usagef("%s takes at most one remote (got %d arguments)", c.Command.Name, c.NArg())
}

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

func newFetchCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "fetch",
		Usage:     "bring runs from a remote, verified before they are kept",
		UsageText: "gitguard fetch [--force] [-n] [REMOTE]",
		Description: "Fetches the run refs of REMOTE (a remote name or URL; default origin) into a\n" +
			"quarantine namespace (refs/agent-checkpoints/quarantine/), verifies every\n" +
			"checkpoint of each run (record formats, sizes, safe paths: no absolute paths,\n" +
			"no '..', no '.git' in any case, nothing through a symlink; every object\n" +
			"present; the run id matching the ref), then moves each good run into\n" +
			"refs/agent-checkpoints/runs/ and deletes the quarantine refs. A run that fails\n" +
			"is refused and none of it is kept (its objects stay unreachable until git gc).\n" +
			"A local run is fast-forwarded; one that has diverged from the remote's is\n" +
			"kept unless --force (never this worktree's active run). No other ref is\n" +
			"written: no branches, tags, remote-tracking refs or FETCH_HEAD.\n" +
			"With -n the runs are fetched and verified but no run ref changes.\n" +
			"Exit 3 if a run was refused, 1 if a diverged run was kept.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: "replace local runs that have diverged from the remote's"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "fetch and verify, change no run"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			remote, err := remoteArg(c)
			if err != nil {
				return err
			}
			wantJSON(c, e)
			return runFetch(c.Context, e, syncOptions{remote: remote, force: c.Bool("force"), dryRun: c.Bool("dry-run")})
		},
	}
}

func runFetch(ctx context.Context, e *env, opts syncOptions) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	rep, ferr := g.Fetch(ctx, opts.remote, gitguard.FetchOptions{Force: opts.force, DryRun: opts.dryRun})
	if rep == nil {
		return ferr
	}
	out := jsonFetch{Version: jsonVersion, Remote: rep.Remote, DryRun: rep.DryRun, Runs: []jsonFetchRun{}}
	for _, r := range rep.Results {
		jr := jsonFetchRun{Run: r.Run, Action: string(r.Action), Remote: r.Remote.String()}
		if !r.Local.IsZero() {
			jr.Local = r.Local.String()
		}
		if r.Err != nil {
			jr.Reason = r.Err.Error()
		}
		out.Runs = append(out.Runs, jr)
	}
	if e.json {
		if err := e.printJSON(out); err != nil {
			return err
		}
		return ferr
	}
	if len(out.Runs) == 0 {
		e.say("no runs on %s", rep.Remote)
		return ferr
	}
	tw := tabwriter.NewWriter(e.text(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tACTION\tLOCAL\tREMOTE")
	for _, r := range rep.Results {
		local := "-"
		if !r.Local.IsZero() {
			local = r.Local.Short()
		}
		action := string(r.Action)
		if rep.DryRun && action != string(gitguard.FetchUpToDate) && action != string(gitguard.FetchRefused) {
			action = "would " + action
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", sanitize(r.Run), action, local, r.Remote.Short())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return ferr
}

// sanitize makes a name from a remote safe to print on a terminal.
func sanitize(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
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

type jsonFetch struct {
	Version int            `json:"version"`
	Remote  string         `json:"remote"`
	DryRun  bool           `json:"dry_run,omitempty"`
	Runs    []jsonFetchRun `json:"runs"`
}

type jsonFetchRun struct {
	Run    string `json:"run"`
	Action string `json:"action"`
	Local  string `json:"local,omitempty"`
	Remote string `json:"remote"`
	Reason string `json:"reason,omitempty"`
}
