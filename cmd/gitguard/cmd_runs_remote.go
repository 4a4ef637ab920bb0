package main

import (
	"context"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/gitguard/gitguard/record"
)

const remoteRunsHelp = "With --remote, lists the runs of REMOTE (a remote name or URL; default\n" +
	"gitguard.remote from git config, else origin) without fetching their\n" +
	"checkpoints: ids and tips from git ls-remote and, when the host serves\n" +
	"partial fetches, each tip checkpoint's summary (start, state, calls, agent),\n" +
	"read from the tip commits alone. On other hosts, or with --ids-only, ids and\n" +
	"tips only. Nothing is written to this repository. Fetch chosen runs with\n" +
	"'gitguard fetch --run RUN'."

type jsonRemoteRuns struct {
	Version   int             `json:"version"`
	Remote    string          `json:"remote"`
	Summaries bool            `json:"summaries"` // false: the host serves refs only, or --ids-only
	Runs      []jsonRemoteRun `json:"runs"`
}

type jsonRemoteRun struct {
	ID         record.RunID `json:"id"`
	Tip        string       `json:"tip"`
	Checkpoint string       `json:"last_checkpoint,omitempty"`
	StartedAt  time.Time    `json:"started_at,omitzero"`
	LastAt     time.Time    `json:"last_at,omitzero"`
	State      string       `json:"state,omitempty"`
	Calls      *int         `json:"calls,omitempty"`
	OpenCalls  *int         `json:"open_calls,omitempty"`
	Origin     string       `json:"origin,omitempty"`
	Agent      string       `json:"agent,omitempty"`
}

func runRemoteRuns(ctx context.Context, e *env, remote string, summaries bool) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	if remote, err = g.SyncRemote(ctx, remote); err != nil {
		return err
	}
	runs, read, err := g.RemoteRuns(ctx, remote, summaries)
	if err != nil {
		return err
	}
	out := jsonRemoteRuns{Version: jsonVersion, Remote: remote, Summaries: read, Runs: []jsonRemoteRun{}}
	count := func(n int) *int {
		if n < 0 {
			return nil
		}
		return &n
	}
	for _, r := range runs {
		out.Runs = append(out.Runs, jsonRemoteRun{ID: r.ID, Tip: r.Tip.String(), Checkpoint: r.Checkpoint,
			StartedAt: r.StartedAt, LastAt: r.LastAt, State: r.State, Calls: count(r.Calls),
			OpenCalls: count(r.OpenCalls), Origin: r.Origin, Agent: r.Agent})
	}
	if e.json {
		return e.printJSON(out)
	}
	if len(runs) == 0 {
		e.say("no runs on %s", remote)
		return nil
	}
	if summaries && !read {
		e.say("%s serves no partial fetch: ids and tips only", remote)
	}
	tw := tabwriter.NewWriter(e.text(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tTIP\tSTATE\tCALLS\tSTARTED\tLAST\tAGENT")
	at := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format(time.RFC3339)
	}
	num := func(p *int) string {
		if p == nil {
			return "-"
		}
		return strconv.Itoa(*p)
	}
	for _, r := range out.Runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Tip[:12], dash(r.State), num(r.Calls), at(r.StartedAt), at(r.LastAt), dash(sanitize(r.Agent)))
	}
	return tw.Flush()
}
