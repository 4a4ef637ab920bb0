package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/gitguard/gitguard"
	"github.com/urfave/cli/v2"
)

func newFetchCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "fetch",
		Usage:     "bring runs from a remote, verified before they are kept",
		UsageText: "gitguard fetch [--force] [-n] [--run RUN]... [REMOTE]",
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
			"With --run only the runs named are fetched (see 'gitguard runs --remote').\n" +
			"With -n the runs are fetched and verified but no run ref changes.\n" +
			"Exit 3 if a run was refused, 1 if a diverged run was kept.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: "replace local runs that have diverged from the remote's"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "fetch and verify, change no run"},
			&cli.StringSliceFlag{Name: "run", Usage: "fetch only run `RUN` (repeatable)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			remote, err := remoteArg(c)
			if err != nil {
				return err
			}
			runs, err := runFlags(c)
			if err != nil {
				return err
			}
			wantJSON(c, e)
			return runFetch(c.Context, e, syncOptions{remote: remote, force: c.Bool("force"), dryRun: c.Bool("dry-run"), runs: runs})
		},
	}
}

func runFetch(ctx context.Context, e *env, opts syncOptions) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	if opts.remote, err = g.SyncRemote(ctx, opts.remote); err != nil {
		return err
	}
	rep, ferr := g.Fetch(ctx, opts.remote, gitguard.FetchOptions{Force: opts.force, DryRun: opts.dryRun, Runs: opts.runs})
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
