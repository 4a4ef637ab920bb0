package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/patchstore"
)

type statusOptions struct {
	run string
	gitguard.StatusOptions
}

func newStatusCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "classify every path the run touched: applied, reapplyable, conflicted",
		UsageText: "gitguard status [--run ID] [--call ID] [--no-unrecorded]",
		Description: "For every path the run's calls touched, compares the current file with the newest\n" +
			"patch for it: applied (current = the agent's after), reapplyable (current = before),\n" +
			"conflicted (neither: someone else changed it). Only touched paths are hashed.\n" +
			"It also lists changes since the newest checkpoint that no call recorded\n" +
			"(unrecorded), which walks the work tree; --no-unrecorded skips that walk.",
		Flags: []cli.Flag{runFlag("the run `ID`"), jsonFlag,
			&cli.StringFlag{Name: "call", Usage: "only the paths of call `ID`, against its own patch"},
			&cli.BoolFlag{Name: "no-unrecorded", Usage: "do not walk the work tree for unrecorded changes"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			return runStatus(c.Context, e, statusOptions{run: c.String("run"), StatusOptions: gitguard.StatusOptions{
				Call: c.String("call"), Unrecorded: !c.Bool("no-unrecorded") && c.String("call") == ""}})
		},
	}
}

type jsonStatus struct {
	Version    int              `json:"version"`
	Run        string           `json:"run"`
	Checkpoint string           `json:"checkpoint"`
	Paths      []jsonPathStatus `json:"paths"`
	Unrecorded []jsonChange     `json:"unrecorded"`
	// AgentCommits are the calls during which the agent committed.
	AgentCommits []jsonHeadMove `json:"agent_commits,omitempty"`
}

type jsonPathStatus struct {
	Path     string `json:"path"`
	State    string `json:"state"`
	Call     string `json:"call"`
	Tool     string `json:"tool,omitempty"`
	Before   string `json:"before"`
	After    string `json:"after"`
	Current  string `json:"current"`
	Oversize bool   `json:"oversize,omitempty"`
}

// stateString renders a state as "MODE HASH", or "absent".
func stateString(s patchstore.State) string {
	if !s.Exists() {
		return "absent"
	}
	return s.Mode.String() + " " + s.Hash.String()
}

func runStatus(ctx context.Context, e *env, opts statusOptions) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	rep, err := g.Status(ctx, opts.run, opts.StatusOptions)
	if err != nil {
		return err
	}
	if e.json {
		out := jsonStatus{Version: jsonVersion, Run: rep.Run, Checkpoint: rep.Checkpoint.Checkpoint.ID,
			Paths: []jsonPathStatus{}, Unrecorded: []jsonChange{}}
		for _, p := range rep.Paths {
			cur := stateString(p.Current)
			if p.IsDir {
				cur = "folder"
			}
			out.Paths = append(out.Paths, jsonPathStatus{Path: p.Path, State: p.State.String(), Call: p.Call, Tool: p.Tool,
				Before: stateString(p.Before), After: stateString(p.After), Current: cur, Oversize: p.Oversize})
		}
		for _, c := range rep.Unrecorded {
			out.Unrecorded = append(out.Unrecorded, jsonChange{Path: c.Path, Status: changeStatus(c),
				Before: c.Before.Hash.String(), After: c.After.Hash.String()})
		}
		out.AgentCommits = toJSONHeadMoves(rep.HeadMoves)
		return e.printJSON(out)
	}
	e.printf("run %s at %s\n", rep.Run, rep.Checkpoint.Checkpoint.ID)
	if len(rep.Paths) == 0 {
		e.printf("no paths touched by the agent\n")
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, p := range rep.Paths {
		fmt.Fprintf(tw, "  %s\t%s\t%s (%s)\n", p.State, p.Path, p.Call, p.Tool)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printHeadMoves(e, rep.HeadMoves, false)
	if len(rep.Unrecorded) > 0 {
		e.printf("unrecorded (changed since %s, no call recorded it):\n", rep.Checkpoint.Checkpoint.ID)
		for _, c := range rep.Unrecorded {
			e.printf("  %s %s\n", changeStatus(c), c.Path)
		}
	}
	return nil
}
