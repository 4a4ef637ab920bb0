package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
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
			run, err := record.ParseOptionalRunID(c.String("run"))
			if err != nil {
				return err
			}
			return runLedger(c.Context, e, run, limit, isDefault)
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
	pick, err := pickRun(ctx, e, g, runID)
	if err != nil {
		return err
	}
	runID = pick.ID
	if e.json {
		run, calls, more, err := ledgerCalls(ctx, g, runID, limit)
		if err != nil {
			return err
		}
		doc := protocol.NewLedgerDoc(run, calls)
		doc.More = more
		doc.RunPicked = picked(pick)
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
			effects = printableList(l.SideEffects)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", l.CallID, record.Printable(l.ToolName), status, ts(l.StartedAt), ts(l.FinishedAt),
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

// printableList shows recorded texts as a list, each made printable.
func printableList(texts []string) string {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = record.Printable(t)
	}
	return "[" + strings.Join(out, " ") + "]"
}
