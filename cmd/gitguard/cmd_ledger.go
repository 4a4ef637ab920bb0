package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/brief"
	"github.com/gitguard/gitguard/protocol"
	"github.com/gitguard/gitguard/record"
)

func newLedgerCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "ledger",
		Usage:     "list the run's tool calls with status, timestamps and effects",
		UsageText: "gitguard ledger [--run RUN] [-n N | --all]",
		Description: "Lists the calls of the run, oldest first: status, tool, idempotency, replay\n" +
			"verdict, side effects and the paths it changed. Shows the newest 50 unless -n or\n" +
			"--all says otherwise (--json says \"more\": true when older calls are left out).",
		Flags: append([]cli.Flag{runFlag("the run `RUN`"), jsonFlag}, pageFlags("calls")...),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			limit, isDefault, err := pageLimit(c)
			if err != nil {
				return err
			}
			return runLedger(c.Context, e, record.RunID(c.String("run")), limit, isDefault)
		},
	}
}

// runLedger lists the newest limit calls of the run (all when 0); a note
// follows when the default limit left older ones out.
func runLedger(ctx context.Context, e *env, runID record.RunID, limit int, isDefault bool) error {
	g, err := e.openRecords(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	if e.json {
		run, calls, more, err := ledgerCalls(ctx, g, runID, limit)
		if err != nil {
			return err
		}
		doc := protocol.NewLedgerDoc(run, calls)
		doc.More = more
		return e.printJSON(doc)
	}
	// The table needs the ledger entries only, not the patches and states.
	run, calls, more, err := ledgerEntries(ctx, g, runID, limit)
	if err != nil {
		return err
	}
	if len(calls) == 0 {
		e.say("no calls recorded in run %s", run.ID)
		return nil
	}
	defer func() {
		if more && isDefault {
			e.say("(the newest %d calls shown; 'gitguard ledger --all' or '-n N' for more)", limit)
		}
	}()
	tw := tabwriter.NewWriter(e.text(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CALL\tTOOL\tSTATUS\tSTARTED\tFINISHED\tIDEMPOTENCY\tREPLAY\tPATHS\tEFFECTS")
	for _, l := range calls {
		status := string(l.Status)
		if l.UndoneBy != "" {
			status += " (undone by " + string(l.UndoneBy) + ")"
		}
		effects := "-"
		if len(l.SideEffects) > 0 {
			effects = fmt.Sprint(l.SideEffects)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", l.CallID, l.ToolName, status, ts(l.StartedAt), ts(l.FinishedAt),
			dash(string(l.Idempotency)), gitguard.ReplayVerdict(l), l.Patches, effects)
	}
	return tw.Flush()
}

// ledgerCalls is Guard.Ledger, or Guard.LedgerCallsPage with a limit.
func ledgerCalls(ctx context.Context, g *gitguard.Guard, runID record.RunID, limit int) (*gitguard.Run, []*record.Call, bool, error) {
	if limit == 0 {
		run, calls, err := g.Ledger(ctx, runID)
		return run, calls, false, err
	}
	return g.LedgerCallsPage(ctx, runID, limit)
}

// ledgerEntries is Guard.LedgerEntries, or Guard.LedgerPage with a limit.
func ledgerEntries(ctx context.Context, g *gitguard.Guard, runID record.RunID, limit int) (*gitguard.Run, []record.LedgerEntry, bool, error) {
	if limit == 0 {
		run, entries, err := g.LedgerEntries(ctx, runID)
		return run, entries, false, err
	}
	return g.LedgerPage(ctx, runID, limit)
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
		UsageText: "gitguard resume [--run RUN] [--dry-run]",
		Description: "Loads the newest checkpoint of the run, verifies its objects and records, classifies\n" +
			"every path the agent touched against the work tree, marks every call found started\n" +
			"(its process is gone) uncertain, and prints a brief for the model: what succeeded\n" +
			"and is applied, what failed, what must not be replayed, what someone else changed.\n" +
			"--json gives the same facts for a runtime, with a replay verdict per call.",
		Flags: []cli.Flag{runFlag("the run `RUN`"), jsonFlag,
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
	if e.json {
		return e.printJSON(protocol.NewResumeDoc(r))
	}
	e.printf("%s", brief.Text(r))
	return nil
}

func newCompensateCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "compensate",
		Usage:     "list external effects that undo cannot revert, with their compensation",
		UsageText: "gitguard compensate [--run RUN] [--since CKPT]",
		Description: "Lists the non-idempotent calls that succeeded (or may have: uncertain) after\n" +
			"checkpoint CKPT (the whole run by default), with the compensation the runtime\n" +
			"recorded. gitguard undo reverts files only; these effects stay until someone\n" +
			"compensates them by hand.",
		Flags: []cli.Flag{runFlag("the run `RUN`"), jsonFlag,
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
	Version int                   `json:"version"`
	Run     record.RunID          `json:"run"`
	Note    string                `json:"note"`
	Calls   []protocol.CallRecord `json:"calls"`
}

const compensateNote = "gitguard undo reverts file changes only; the external effects below are not undone by it"

func runCompensate(ctx context.Context, e *env, runID record.RunID, since string) error {
	g, err := e.openRecords(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	var sinceEntry *record.Entry
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
		out := jsonCompensate{Version: jsonVersion, Run: id, Note: compensateNote, Calls: []protocol.CallRecord{}}
		for _, c := range comps {
			out.Calls = append(out.Calls, protocol.NewCallRecord(&record.Call{Ledger: c.Entry}))
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
