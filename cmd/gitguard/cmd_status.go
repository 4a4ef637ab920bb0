package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/patchstore/record"
)

type statusOptions struct {
	run record.RunID
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
			return runStatus(c.Context, e, statusOptions{run: record.RunID(c.String("run")), StatusOptions: gitguard.StatusOptions{
				Call: record.CallID(c.String("call")), Unrecorded: !c.Bool("no-unrecorded") && record.CallID(c.String("call")) == ""}})
		},
	}
}

type jsonStatus struct {
	Version    int              `json:"version"`
	Run        record.RunID     `json:"run"`
	Checkpoint string           `json:"checkpoint"`
	Paths      []jsonPathStatus `json:"paths"`
	Unrecorded []jsonChange     `json:"unrecorded"`
	// OpenElsewhere names, as "run/call", the calls of other runs of this
	// work tree open right now.
	OpenElsewhere []string `json:"open_elsewhere,omitempty"`
	// Others are changes seen during this run's shell calls that calls of
	// other runs made.
	Others []jsonOtherChange `json:"others,omitempty"`
}

type jsonOtherChange struct {
	Path    string        `json:"path"`
	SeenBy  record.CallID `json:"seen_by,omitempty"` // this run's shell call it was seen in
	OwnedBy string        `json:"owned_by"`          // run/call
}

type jsonPathStatus struct {
	Path     string        `json:"path"`
	State    string        `json:"state"`
	Call     record.CallID `json:"call"`
	Tool     string        `json:"tool,omitempty"`
	Before   string        `json:"before"`
	After    string        `json:"after"`
	Current  string        `json:"current"`
	Oversize bool          `json:"oversize,omitempty"`
	// SharedWith names, as "run/call", other runs' calls that may equally
	// have made the change.
	SharedWith []string `json:"shared_with,omitempty"`
}

// stateString renders a state as "MODE HASH", or "absent".
func stateString(s record.State) string {
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
	for _, r := range rep.OpenElsewhere {
		fmt.Fprintf(e.stderr, "gitguard: warning: call %s of run %s is running in this work tree now; an undo may race its edits\n", r.Call, r.Run)
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
				Before: stateString(p.Before), After: stateString(p.After), Current: cur, Oversize: p.Oversize,
				SharedWith: refStrings(p.SharedWith)})
		}
		out.OpenElsewhere = refStrings(rep.OpenElsewhere)
		for _, o := range rep.Others {
			out.Others = append(out.Others, jsonOtherChange{Path: o.Path, SeenBy: o.ToolCallID, OwnedBy: o.OwnedBy.String()})
		}
		for _, c := range rep.Unrecorded {
			out.Unrecorded = append(out.Unrecorded, jsonChange{Path: c.Path, Status: changeStatus(c),
				Before: c.Before.Hash.String(), After: c.After.Hash.String()})
		}
		return e.printJSON(out)
	}
	e.printf("run %s at %s\n", rep.Run, rep.Checkpoint.Checkpoint.ID)
	if len(rep.Paths) == 0 {
		e.printf("no paths touched by the agent\n")
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, p := range rep.Paths {
		line := fmt.Sprintf("  %s\t%s\t%s (%s)", p.State, p.Path, p.Call, p.Tool)
		if len(p.SharedWith) > 0 {
			line += "\tshared with " + strings.Join(refStrings(p.SharedWith), ", ")
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rep.Others) > 0 {
		e.printf("made by other runs' calls meanwhile (not this run's to undo):\n")
		for _, o := range rep.Others {
			e.printf("  %s\t%s (seen during %s)\n", o.Path, o.OwnedBy, o.ToolCallID)
		}
	}
	if len(rep.Unrecorded) > 0 {
		e.printf("unrecorded (changed since %s, no call recorded it):\n", rep.Checkpoint.Checkpoint.ID)
		for _, c := range rep.Unrecorded {
			e.printf("  %s %s\n", changeStatus(c), c.Path)
		}
	}
	return nil
}

// refStrings renders call references as "run/call".
func refStrings(refs []record.CallRef) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.String())
	}
	return out
}
