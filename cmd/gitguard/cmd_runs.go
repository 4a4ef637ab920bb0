package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard/record"
)

func newRunsCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "runs",
		Usage:     "list runs, most recently active first",
		UsageText: "gitguard runs [--json]\n   gitguard runs --remote [--ids-only] [--json] [REMOTE]",
		Description: "Lists every run recorded in this repository, with its state and checkpoint count,\n" +
			"its calls open now, and the runs of the same work tree whose windows (first\n" +
			"checkpoint to finish, or until now while not finished; an undo or redo after the\n" +
			"finish keeps it finished) overlap its own: sessions that ran at the same time.\n\n" +
			remoteRunsHelp,
		Flags: []cli.Flag{jsonFlag,
			&cli.BoolFlag{Name: "remote", Usage: "list the runs of REMOTE (default gitguard.remote, else origin) without fetching them"},
			&cli.BoolFlag{Name: "ids-only", Usage: "with --remote: ids and tips only (git ls-remote), no summaries"},
		},
		Action: func(c *cli.Context) error {
			if c.Bool("remote") {
				remote, err := remoteArg(c)
				if err != nil {
					return err
				}
				wantJSON(c, e)
				return runRemoteRuns(c.Context, e, remote, !c.Bool("ids-only"))
			}
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			return runRuns(c.Context, e)
		},
	}
}

type jsonRuns struct {
	Version int       `json:"version"`
	Runs    []jsonRun `json:"runs"`
}

type jsonRun struct {
	ID          record.RunID        `json:"id"`
	State       string              `json:"state"` // active, open, finished
	Checkpoints int                 `json:"checkpoints"`
	Tip         string              `json:"tip"`
	LastID      record.CheckpointID `json:"last_checkpoint"`
	LastAt      time.Time           `json:"last_at"`
	// Active: the run is not finished. StartedAt and EndedAt bound its
	// window (EndedAt only once finished).
	Active    bool            `json:"active"`
	StartedAt time.Time       `json:"started_at,omitzero"`
	EndedAt   time.Time       `json:"ended_at,omitzero"`
	OpenCalls []record.CallID `json:"open_calls,omitempty"`
	Overlaps  []record.RunID  `json:"overlaps,omitempty"`
}

func runRuns(ctx context.Context, e *env) error {
	g, err := e.openRecords(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	active, err := g.ActiveRun()
	if err != nil {
		return err
	}
	infos, err := g.RunWindows(ctx)
	if err != nil {
		return err
	}
	out := jsonRuns{Version: jsonVersion, Runs: []jsonRun{}}
	for _, i := range infos {
		state := "open"
		switch {
		case i.ID == active:
			state = "active"
		case i.Finished:
			state = "finished"
		}
		out.Runs = append(out.Runs, jsonRun{ID: i.ID, State: state, Checkpoints: i.Checkpoints,
			Tip: i.Tip.String(), LastID: i.Last.ID, LastAt: i.Last.CreatedAt,
			Active: i.Active(), StartedAt: i.Start, EndedAt: i.End, OpenCalls: i.Open, Overlaps: i.Overlaps})
	}
	if e.json {
		return e.printJSON(out)
	}
	if len(out.Runs) == 0 {
		e.say("no runs yet; start one with 'gitguard start' or 'gitguard snapshot'")
		return nil
	}
	tw := tabwriter.NewWriter(e.text(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTATE\tCHECKPOINTS\tLAST\tAT\tOPEN CALLS\tOVERLAPS")
	for _, r := range out.Runs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.ID, r.State, r.Checkpoints, r.LastID, r.LastAt.UTC().Format(time.RFC3339),
			dash(record.JoinCallIDs(r.OpenCalls, ",")), dash(joinRunIDs(r.Overlaps)))
	}
	return tw.Flush()
}

func joinRunIDs(ids []record.RunID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return strings.Join(s, ",")
}
