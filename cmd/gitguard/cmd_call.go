package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/protocol"
	"github.com/gitguard/gitguard/record"
)

func newCallCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "call",
		Usage:     "record an agent tool call: plan, approve, deny, start, finish",
		UsageText: "gitguard call plan|approve|deny|start|finish CALL [FLAGS]",
		Description: "A call records what one tool invocation of the agent did to files. With paths,\n" +
			"start captures each path's before state and finish its after state; without paths,\n" +
			"start and finish snapshot the whole workspace and the patch is every path that\n" +
			"changed between them (so edits made by shell commands are recorded too).",
		Subcommands: []*cli.Command{newCallPlanCommand(e), newCallDecideCommand(e, true), newCallDecideCommand(e, false),
			newCallStartCommand(e), newCallFinishCommand(e)},
	}
}

func callIdentityFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "tool", Usage: "the tool's `NAME` (write_file, run_command, ...)"},
		&cli.StringFlag{Name: "input-hash", Usage: "a `HASH` of the call's input, as the runtime computes it", Category: runtimeCategory},
		&cli.StringFlag{Name: "input", Usage: "a short summary of the input as `TEXT`, e.g. the command line"},
		&cli.StringFlag{Name: "idempotency", Usage: "`CLASS`: idempotent, conditional or non_idempotent"},
		&cli.StringFlag{Name: "replay", Usage: "replay `POLICY` at resume: auto, ask or never"},
		&cli.StringSliceFlag{Name: "side-effect", Usage: "an external effect of the call, as `TEXT`, e.g. 'sends an email' (repeatable)"},
		&cli.StringFlag{Name: "compensation", Usage: "how to undo the call's external effect by hand, as `TEXT`"},
	}
}

// callOptions reads the call identity and ledger flags; the caller adds
// what else the command takes and validates the result.
func callOptions(c *cli.Context, id record.CallID) gitguard.CallOptions {
	return gitguard.CallOptions{
		CallID: id, Tool: c.String("tool"), StepID: c.String("step"), InputHash: c.String("input-hash"),
		Input: c.String("input"), SideEffects: c.StringSlice("side-effect"), Compensation: c.String("compensation"),
		Idempotency: record.Idempotency(c.String("idempotency")), ReplayPolicy: record.ReplayPolicy(c.String("replay")),
		Checkpoint: checkpointOptions(c),
	}
}

func newCallPlanCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "record a call in the ledger before it runs",
		UsageText: "gitguard call plan CALL --tool NAME [--idempotency idempotent|conditional|non_idempotent] [--replay auto|ask|never] [--side-effect TEXT]... [--compensation TEXT] [--input-hash HASH]",
		Description: "Records what the call will do and how safe it is to repeat, so that a resume\n" +
			"never replays a non-idempotent call. Nothing runs and no file is captured.",
		Flags: flags([]cli.Flag{runFlag("record into run `RUN`"), jsonFlag}, callIdentityFlags(), checkpointFlags()),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("call plan needs exactly one CALL")
			}
			wantJSON(c, e)
			var p ids
			runID, call := p.run(c.String("run")), p.call(c.Args().First())
			if p.err != nil {
				return p.err
			}
			o := callOptions(c, call)
			if err := o.Validate(); err != nil {
				return err
			}
			g, err := e.open(c.Context)
			if err != nil {
				return err
			}
			defer g.Close()
			run, err := g.CallPlan(c.Context, runID, o)
			if err != nil {
				return err
			}
			return e.printCall(run, o.CallID)
		},
	}
}

func newCallDecideCommand(e *env, approve bool) *cli.Command {
	name, usage := "approve", "record that a planned call was approved"
	if !approve {
		name, usage = "deny", "record that a planned call was denied"
	}
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		UsageText: "gitguard call " + name + " CALL [--by WHO] [--reason TEXT]",
		Description: "Records the decision on a planned call in the ledger, before the tool runs: an\n" +
			"approved call may then start; a denied one never will, and the resume brief says\n" +
			"so with the reason.",
		Flags: []cli.Flag{runFlag("the call's run `RUN`"), jsonFlag,
			&cli.StringFlag{Name: "by", Usage: "who decided"},
			&cli.StringFlag{Name: "reason", Usage: "why"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("call %s needs exactly one CALL", name)
			}
			wantJSON(c, e)
			var p ids
			runID, id := p.run(c.String("run")), p.call(c.Args().First())
			if p.err != nil {
				return p.err
			}
			g, err := e.open(c.Context)
			if err != nil {
				return err
			}
			defer g.Close()
			run, err := g.CallDecide(c.Context, runID, id, approve, c.String("by"), c.String("reason"))
			if err != nil {
				return err
			}
			return e.printCall(run, id)
		},
	}
}

func newCallStartCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "start",
		Usage:     "record a call's start and the before state of what it may change",
		UsageText: "gitguard call start CALL --tool NAME [--step STEP] [--input-hash HASH] [--paths GLOB]... [-- PATH...]",
		Description: "Returns once the start is durable, so run the tool after it returns. PATHs are\n" +
			"relative to the current directory; a folder widens the capture to the whole\n" +
			"workspace narrowed to that folder. --paths narrows a whole-workspace capture.",
		Flags: flags([]cli.Flag{runFlag("record into run `RUN`"), jsonFlag,
			&cli.StringSliceFlag{Name: "paths", Usage: "only record paths matching `GLOB` (doublestar, repeatable)"}},
			callIdentityFlags(), checkpointFlags()),
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return usagef("call start needs a CALL")
			}
			wantJSON(c, e)
			var p ids
			runID, call := p.run(c.String("run")), p.call(c.Args().First())
			if p.err != nil {
				return p.err
			}
			o := callOptions(c, call)
			o.Globs = c.StringSlice("paths")
			if err := o.Validate(); err != nil {
				return err
			}
			return runCallStart(c.Context, e, runID, o, c.Args().Slice()[1:])
		},
	}
}

func runCallStart(ctx context.Context, e *env, runID record.RunID, o gitguard.CallOptions, args []string) error {
	shortLivedGC(e.getenv)
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	for _, a := range args {
		p, err := g.RepoPath(e.dir, a)
		if err != nil {
			return err
		}
		o.Paths = append(o.Paths, p)
	}
	run, err := g.CallStart(ctx, runID, o)
	if err != nil {
		return err
	}
	return e.printCall(run, o.CallID)
}

func newCallFinishCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "finish",
		Usage:     "record a call's end and the patch it made",
		UsageText: "gitguard call finish CALL [--status succeeded|failed|uncertain] [--result TEXT]",
		Description: "Captures the after state of the call's paths (or snapshots the whole workspace\n" +
			"for a call started without paths), records the patch of every path that changed\n" +
			"and the call's end in the ledger.",
		Flags: flags([]cli.Flag{runFlag("the call's run `RUN`"), jsonFlag,
			&cli.StringFlag{Name: "status", Value: "succeeded", Usage: "how the call ended: succeeded, failed or uncertain"},
			&cli.StringFlag{Name: "result", Usage: "a short summary of the result, for the resume brief"},
			&cli.StringFlag{Name: "result-ref", Usage: "where the runtime keeps the full result", Category: runtimeCategory},
			&cli.IntFlag{Name: "exit-code", Usage: "the tool's exit code, if it has one"},
		}, checkpointFlags()),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("call finish needs exactly one CALL")
			}
			wantJSON(c, e)
			o := gitguard.FinishOptions{Status: record.Status(c.String("status")), Result: c.String("result"),
				ResultRef: c.String("result-ref"), Checkpoint: checkpointOptions(c)}
			if c.IsSet("exit-code") {
				v := c.Int("exit-code")
				o.ExitCode = &v
			}
			if err := o.Validate(); err != nil {
				return err
			}
			var p ids
			runID, call := p.run(c.String("run")), p.call(c.Args().First())
			if p.err != nil {
				return p.err
			}
			return runCallFinish(c.Context, e, runID, call, o)
		},
	}
}

func runCallFinish(ctx context.Context, e *env, runID record.RunID, callID record.CallID, o gitguard.FinishOptions) error {
	shortLivedGC(e.getenv)
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	run, err := g.CallFinish(ctx, runID, callID, o)
	if err != nil {
		return err
	}
	return e.printCall(run, callID)
}

func (e *env) printCall(run *gitguard.Run, callID record.CallID) error {
	c := run.Calls[callID]
	if e.json {
		return e.printJSON(protocol.NewCallDoc(run, callID))
	}
	e.printf("%s\n", run.Commit)
	switch c.Ledger.Status {
	case record.StatusPlanned, record.StatusApproved, record.StatusDenied:
		e.say("call %s (%s) %s in run %s at %s", callID, record.Printable(c.Ledger.ToolName), c.Ledger.Status, run.ID, run.Checkpoint.ID)
	case record.StatusStarted:
		scope := "the whole workspace"
		if n := len(c.Ledger.Paths); n > 0 {
			scope = fmt.Sprintf("%d path(s)", n)
		}
		e.say("call %s (%s) started in run %s at %s; captured %s", callID, record.Printable(c.Ledger.ToolName), run.ID, run.Checkpoint.ID, scope)
	default:
		e.say("call %s (%s) %s in run %s at %s; %d path(s) changed", callID, record.Printable(c.Ledger.ToolName), c.Ledger.Status,
			run.ID, run.Checkpoint.ID, len(c.Patches))
		for _, p := range c.Patches {
			e.say("  %s %s", protocol.PatchLetter(p), record.QuotePath(p.Path))
		}
	}
	for _, sk := range run.Checkpoint.Skipped {
		e.say("warning: %s not recorded: %s", record.QuotePath(sk.Path), sk.Reason)
	}
	return nil
}
