package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/patchstore"
)

func newCallCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "call",
		Usage: "record an agent tool call: start, finish",
		Description: "A call records what one tool invocation of the agent did to files. With paths,\n" +
			"start captures each path's before state and finish its after state; without paths,\n" +
			"start and finish snapshot the whole workspace and the patch is every path that\n" +
			"changed between them (so edits made by shell commands are recorded too).",
		Subcommands: []*cli.Command{newCallStartCommand(e), newCallFinishCommand(e)},
	}
}

func callIdentityFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "tool", Usage: "the tool's `NAME` (write_file, run_command, ...)"},
		&cli.StringFlag{Name: "input-hash", Usage: "a hash of the call's input, as the runtime computes it"},
		&cli.StringFlag{Name: "input", Usage: "a short summary of the input, e.g. the command line"},
	}
}

func newCallStartCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "start",
		Usage:     "record a call's start and the before state of what it may change",
		UsageText: "gitguard call start CALL_ID --tool NAME [--step ID] [--input-hash H] [--paths GLOB]... [-- PATH...]",
		Description: "Returns once the start is durable, so run the tool after it returns. PATHs are\n" +
			"relative to the current directory; a folder widens the capture to the whole\n" +
			"workspace narrowed to that folder. --paths narrows a whole-workspace capture.",
		Flags: flags([]cli.Flag{runFlag("record into run `ID`"), jsonFlag,
			&cli.StringSliceFlag{Name: "paths", Usage: "only record paths matching `GLOB` (doublestar, repeatable)"}},
			callIdentityFlags(), checkpointFlags()),
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return usagef("call start needs a CALL_ID")
			}
			wantJSON(c, e)
			o := gitguard.CallOptions{
				CallID: c.Args().First(), Tool: c.String("tool"), StepID: c.String("step"),
				InputHash: c.String("input-hash"), Input: c.String("input"), Globs: c.StringSlice("paths"),
				Checkpoint: checkpointOptions(c),
			}
			return runCallStart(c.Context, e, c.String("run"), o, c.Args().Slice()[1:])
		},
	}
}

func runCallStart(ctx context.Context, e *env, runID string, o gitguard.CallOptions, args []string) error {
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
		UsageText: "gitguard call finish CALL_ID [--status succeeded|failed|uncertain] [--result TEXT]",
		Flags: flags([]cli.Flag{runFlag("the call's run `ID`"), jsonFlag,
			&cli.StringFlag{Name: "status", Value: "succeeded", Usage: "how the call ended: succeeded, failed or uncertain"},
			&cli.StringFlag{Name: "result", Usage: "a short summary of the result, for the resume brief"},
			&cli.StringFlag{Name: "result-ref", Usage: "where the runtime keeps the full result"},
			&cli.IntFlag{Name: "exit-code", Usage: "the tool's exit code, if it has one"},
		}, checkpointFlags()),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("call finish needs exactly one CALL_ID")
			}
			wantJSON(c, e)
			o := gitguard.FinishOptions{Status: patchstore.Status(c.String("status")), Result: c.String("result"),
				ResultRef: c.String("result-ref"), Checkpoint: checkpointOptions(c)}
			if c.IsSet("exit-code") {
				v := c.Int("exit-code")
				o.ExitCode = &v
			}
			return runCallFinish(c.Context, e, c.String("run"), c.Args().First(), o)
		},
	}
}

func runCallFinish(ctx context.Context, e *env, runID, callID string, o gitguard.FinishOptions) error {
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

type jsonCall struct {
	Version    int         `json:"version"`
	Run        string      `json:"run"`
	Checkpoint string      `json:"checkpoint"`
	Commit     string      `json:"commit"`
	Call       jsonLedger  `json:"call"`
	Patches    []jsonPatch `json:"patches"`
}

func (e *env) printCall(run *patchstore.Run, callID string) error {
	c := run.Calls[callID]
	if e.json {
		out := jsonCall{Version: jsonVersion, Run: run.ID, Checkpoint: run.Checkpoint.ID, Commit: run.Commit.String(),
			Call: toJSONLedger(c), Patches: []jsonPatch{}}
		for _, p := range c.Patches {
			out.Patches = append(out.Patches, toJSONPatch(p))
		}
		return e.printJSON(out)
	}
	e.printf("%s\n", run.Commit)
	switch c.Ledger.Status {
	case patchstore.StatusStarted:
		scope := "the whole workspace"
		if n := len(c.Ledger.Paths); n > 0 {
			scope = fmt.Sprintf("%d path(s)", n)
		}
		e.say("call %s (%s) started in run %s at %s; captured %s", callID, c.Ledger.ToolName, run.ID, run.Checkpoint.ID, scope)
	default:
		e.say("call %s (%s) %s in run %s at %s; %d path(s) changed", callID, c.Ledger.ToolName, c.Ledger.Status,
			run.ID, run.Checkpoint.ID, len(c.Patches))
		for _, p := range c.Patches {
			e.say("  %s %s", patchLetter(p), p.Path)
		}
	}
	return nil
}

func patchLetter(p patchstore.FilePatch) string {
	switch {
	case !p.Before().Exists():
		return "A"
	case !p.After().Exists():
		return "D"
	case p.BeforeHash == p.AfterHash:
		return "T"
	}
	return "M"
}

func init() {
	commandSets = append(commandSets, func(e *env) []*cli.Command {
		return []*cli.Command{newCallCommand(e), newStatusCommand(e), newDiffCommand(e)}
	})
}
