package main

import (
	"github.com/gitguard/gitguard/patchstore/record"

	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
)

func newLedgerCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:        "ledger",
		Usage:       "list the run's tool calls with status, timestamps and effects",
		UsageText:   "gitguard ledger [--run ID]",
		Description: "Lists every call of the run, oldest first: status, tool, idempotency, replay\nverdict, side effects and the paths it changed.",
		Flags:       []cli.Flag{runFlag("the run `ID`"), jsonFlag},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			return runLedger(c.Context, e, record.RunID(c.String("run")))
		},
	}
}

type jsonLedgerList struct {
	Version int               `json:"version"`
	Run     record.RunID      `json:"run"`
	Calls   []jsonLedgerEntry `json:"calls"`
}

type jsonLedgerEntry struct {
	jsonLedger
	Replay  string      `json:"replay"`
	Changes []jsonPatch `json:"changes"`
}

func runLedger(ctx context.Context, e *env, runID record.RunID) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	run, calls, err := g.Ledger(ctx, runID)
	if err != nil {
		return err
	}
	if e.json {
		out := jsonLedgerList{Version: jsonVersion, Run: run.ID, Calls: []jsonLedgerEntry{}}
		for _, c := range calls {
			je := jsonLedgerEntry{jsonLedger: toJSONLedger(c), Replay: string(gitguard.ReplayVerdict(c.Ledger)), Changes: []jsonPatch{}}
			for _, p := range c.Patches {
				je.Changes = append(je.Changes, toJSONPatch(p))
			}
			out.Calls = append(out.Calls, je)
		}
		return e.printJSON(out)
	}
	if len(calls) == 0 {
		e.say("no calls recorded in run %s", run.ID)
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CALL\tTOOL\tSTATUS\tSTARTED\tFINISHED\tIDEMPOTENCY\tREPLAY\tPATHS\tEFFECTS")
	for _, c := range calls {
		l := c.Ledger
		status := string(l.Status)
		if l.UndoneBy != "" {
			status += " (undone by " + string(l.UndoneBy) + ")"
		}
		effects := "-"
		if len(l.SideEffects) > 0 {
			effects = fmt.Sprint(l.SideEffects)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", l.CallID, l.ToolName, status, ts(l.StartedAt), ts(l.FinishedAt),
			dash(string(l.Idempotency)), gitguard.ReplayVerdict(l), len(c.Patches), effects)
	}
	return tw.Flush()
}

func ts(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format("15:04:05")
}

func newResumeCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "resume",
		Usage:     "verify the run and print the recovery brief for the model",
		UsageText: "gitguard resume [--run ID] [--dry-run]",
		Description: "Loads the newest checkpoint of the run, verifies its objects and records, classifies\n" +
			"every path the agent touched against the work tree, marks every call found started\n" +
			"(its process is gone) uncertain, and prints a brief for the model: what succeeded\n" +
			"and is applied, what failed, what must not be replayed, what someone else changed.\n" +
			"--json gives the same facts for a runtime, with a replay verdict per call.",
		Flags: []cli.Flag{runFlag("the run `ID`"), jsonFlag,
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "report without marking started calls uncertain"}},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			return runResume(c.Context, e, record.RunID(c.String("run")), c.Bool("dry-run"))
		},
	}
}

type jsonResume struct {
	Version    int              `json:"version"`
	Run        record.RunID     `json:"run"`
	Checkpoint string           `json:"checkpoint"`
	Commit     string           `json:"commit"`
	LastStep   string           `json:"last_step,omitempty"`
	Calls      []jsonResumeCall `json:"calls"`
	Paths      []jsonPathStatus `json:"paths"`
	Unrecorded []jsonChange     `json:"unrecorded"`
	Budget     *jsonBudget      `json:"budget,omitempty"`
	// FromOthers are changes calls of other sessions (runs of this work
	// tree) made; OpenElsewhere their calls running now, as "run/call".
	FromOthers    []jsonOtherChange `json:"from_others,omitempty"`
	OpenElsewhere []string          `json:"open_elsewhere,omitempty"`
	Brief         string            `json:"brief"`
}

type jsonResumeCall struct {
	jsonLedger
	Replay          string   `json:"replay"`
	Applied         []string `json:"applied"`
	Reapplyable     []string `json:"reapplyable"`
	Conflicted      []string `json:"conflicted"`
	MarkedUncertain bool     `json:"marked_uncertain,omitempty"`
}

func runResume(ctx context.Context, e *env, runID record.RunID, dry bool) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	r, err := g.Resume(ctx, runID, gitguard.ResumeOptions{DryRun: dry})
	if err != nil {
		return err
	}
	brief := r.Brief()
	if !e.json {
		e.printf("%s", brief)
		return nil
	}
	out := jsonResume{Version: jsonVersion, Run: r.Run, Checkpoint: r.Checkpoint.Checkpoint.ID, Commit: r.Checkpoint.Commit.String(),
		LastStep: r.LastStep, Calls: []jsonResumeCall{}, Paths: []jsonPathStatus{}, Unrecorded: []jsonChange{}, Brief: brief}
	for _, c := range r.Calls {
		call := &gitguard.RecordedCall{Ledger: c.Entry}
		out.Calls = append(out.Calls, jsonResumeCall{jsonLedger: toJSONLedger(call), Replay: string(c.Replay),
			Applied: nonNil(c.Applied), Reapplyable: nonNil(c.Absent), Conflicted: nonNil(c.Changed), MarkedUncertain: c.MarkedUncertain})
	}
	for _, p := range r.Paths {
		out.Paths = append(out.Paths, jsonPathStatus{Path: p.Path, State: p.State.String(), Call: p.Call, Tool: p.Tool,
			Before: stateString(p.Before), After: stateString(p.After), Current: stateString(p.Current), Oversize: p.Oversize,
			SharedWith: refStrings(p.SharedWith)})
	}
	for _, o := range r.FromOthers {
		out.FromOthers = append(out.FromOthers, jsonOtherChange{Path: o.Path, SeenBy: o.SeenBy, OwnedBy: o.By.String()})
	}
	out.OpenElsewhere = refStrings(r.OpenElsewhere)
	for _, c := range r.Unrecorded {
		out.Unrecorded = append(out.Unrecorded, jsonChange{Path: c.Path, Status: changeStatus(c), Before: c.Before.Hash.String(), After: c.After.Hash.String()})
	}
	if b := r.Budget; !b.IsZero() {
		out.Budget = &jsonBudget{Tokens: b.Tokens, USD: b.USD, Steps: b.Steps}
	}
	return e.printJSON(out)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func newCompensateCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "compensate",
		Usage:     "list external effects that undo cannot revert, with their compensation",
		UsageText: "gitguard compensate [--run ID] [--since CKPT]",
		Description: "Lists the non-idempotent calls that succeeded (or may have: uncertain) after\n" +
			"checkpoint CKPT (the whole run by default), with the compensation the runtime\n" +
			"recorded. gitguard undo reverts files only; these effects stay until someone\n" +
			"compensates them by hand.",
		Flags: []cli.Flag{runFlag("the run `ID`"), jsonFlag,
			&cli.StringFlag{Name: "since", Usage: "only calls finished after checkpoint `CKPT`"}},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			return runCompensate(c.Context, e, record.RunID(c.String("run")), c.String("since"))
		},
	}
}

type jsonCompensate struct {
	Version int          `json:"version"`
	Run     record.RunID `json:"run"`
	Note    string       `json:"note"`
	Calls   []jsonLedger `json:"calls"`
}

const compensateNote = "gitguard undo reverts file changes only; the external effects below are not undone by it"

func runCompensate(ctx context.Context, e *env, runID record.RunID, since string) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	var sinceEntry *gitguard.Entry
	if since != "" {
		id, err := g.ResolveRun(ctx, runID, false)
		if err != nil {
			return err
		}
		en, err := g.ResolveCheckpoint(ctx, id, since)
		if err != nil {
			return err
		}
		sinceEntry = &en
	}
	id, comps, err := g.Compensations(ctx, runID, sinceEntry)
	if err != nil {
		return err
	}
	if e.json {
		out := jsonCompensate{Version: jsonVersion, Run: id, Note: compensateNote, Calls: []jsonLedger{}}
		for _, c := range comps {
			out.Calls = append(out.Calls, toJSONLedger(&gitguard.RecordedCall{Ledger: c.Entry}))
		}
		return e.printJSON(out)
	}
	e.printf("%s.\n", compensateNote)
	if len(comps) == 0 {
		e.printf("no non-idempotent call with external effects in run %s\n", id)
		return nil
	}
	for _, c := range comps {
		l := c.Entry
		comp := l.Compensation
		if comp == "" {
			comp = "none recorded: ask the user"
		}
		e.printf("- %s (%s) %s", l.ToolName, l.CallID, l.Status)
		if len(l.SideEffects) > 0 {
			e.printf("; effects: %v", l.SideEffects)
		}
		e.printf("; compensation: %s\n", comp)
	}
	return nil
}

func init() {
	commandSets = append(commandSets, func(e *env) []*cli.Command {
		return []*cli.Command{newLedgerCommand(e), newResumeCommand(e), newCompensateCommand(e), newWrapCommand(e)}
	})
}
