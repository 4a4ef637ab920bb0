package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard/protocol"
	"github.com/gitguard/gitguard/record"
)

func newCheckCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "check that the work tree (or the staged changes) match the last checkpoint",
		UsageText: "gitguard check [--staged] [--run RUN]",
		Description: "Exits 0 when the work tree matches the newest checkpoint of the active run (or\n" +
			"no run is active), 1 listing each drifted path otherwise. With --staged it checks\n" +
			"what is about to be committed: every staged change must be content the checkpoint\n" +
			"recorded. The pre-commit hook runs 'gitguard check --staged'; record a drift you\n" +
			"accept with 'gitguard snapshot'. Quiet on success.",
		Flags: []cli.Flag{runFlag("check run `RUN` instead of the active one"), jsonFlag,
			&cli.BoolFlag{Name: "staged", Usage: "check the staged changes instead of the work tree"}},
		Action: func(c *cli.Context) error {
			run, err := runCommandArgs(c, e)
			if err != nil {
				return err
			}
			return runCheck(c.Context, e, run, c.Bool("staged"))
		},
	}
}

type jsonCheck struct {
	Version    int                 `json:"version"`
	Run        record.RunID        `json:"run,omitempty"`
	Checkpoint record.CheckpointID `json:"checkpoint,omitempty"`
	Staged     bool                `json:"staged"`
	Clean      bool                `json:"clean"`
	Drift      []jsonDrift         `json:"drift"`
	// ViewChanges are the calls that changed what gitguard sees; ViewNow
	// what differs now from the view the run started with.
	ViewChanges []protocol.ViewChange `json:"view_changes,omitempty"`
	ViewNow     []string              `json:"view_now,omitempty"`
}

type jsonDrift struct {
	Path     string        `json:"path"`
	Status   string        `json:"status"`
	Recorded string        `json:"recorded"` // "no", or "in progress"
	Call     record.CallID `json:"call,omitempty"`
	Message  string        `json:"message"`
}

func runCheck(ctx context.Context, e *env, runID record.RunID, staged bool) error {
	shortLivedGC(e.getenv)
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	rep, err := g.Check(ctx, runID, staged)
	if err != nil {
		return err
	}
	configNotice(ctx, e, g)
	out := jsonCheck{Version: jsonVersion, Run: rep.Run, Staged: staged, Clean: len(rep.Drift) == 0, Drift: []jsonDrift{},
		ViewChanges: protocol.NewViewChanges(rep.ViewChanges), ViewNow: rep.ViewNow}
	viewNotes(e, rep.ViewChanges, rep.ViewNow)
	if rep.Run != "" {
		out.Checkpoint = rep.Checkpoint.Checkpoint.ID
	}
	what := "changed"
	if staged {
		what = "is staged with content"
	}
	for _, d := range rep.Drift {
		j := jsonDrift{Path: d.Change.Path, Status: changeStatus(d.Change), Recorded: "no", Call: d.Call}
		if d.Call != "" {
			j.Recorded = "in progress"
			j.Message = fmt.Sprintf("%s %s after checkpoint %s; call %s is recording it but has not finished",
				record.QuotePath(j.Path), what, out.Checkpoint, d.Call)
		} else if staged {
			j.Message = fmt.Sprintf("%s is staged with content checkpoint %s did not record", record.QuotePath(j.Path), out.Checkpoint)
		} else {
			j.Message = fmt.Sprintf("%s changed after checkpoint %s and no call recorded it", record.QuotePath(j.Path), out.Checkpoint)
		}
		out.Drift = append(out.Drift, j)
	}
	if e.json {
		if err := e.printJSON(out); err != nil {
			return err
		}
	} else {
		for _, d := range out.Drift {
			e.printf("%s %s\n", d.Status, d.Message)
		}
	}
	if !out.Clean {
		msg := fmt.Sprintf("%d path(s) drifted from checkpoint %s of run %s; if they are yours, 'gitguard snapshot' records them",
			len(out.Drift), out.Checkpoint, out.Run)
		if rep.Git.InProgress() {
			msg += fmt.Sprintf("; %s is in progress", operationName(rep.Git.Operation))
			if staged {
				msg += ": content staged as the commit it brings in has it is not drift, a conflict resolution no call recorded is"
			}
		}
		if staged {
			msg += " (or 'git commit --no-verify' commits without this check)"
		}
		if e.json {
			msg = ""
		}
		return &foundError{msg}
	}
	return nil
}
