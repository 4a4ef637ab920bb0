package main

import (
	"context"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/protocol"
	"github.com/gitguard/gitguard/record"
)

type diffOptions struct {
	run   record.RunID
	call  record.CallID
	since string
	stat  bool
	globs []string
}

func newDiffCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "show the agent's changes as a patch git can apply",
		UsageText: "gitguard diff [--run RUN] [--call CALL | CKPT] [--stat] [--paths GLOB]",
		Description: "Prints the agent's net change per path as a git-style patch that `git apply`\n" +
			"accepts against the before state: one call's (--call), everything recorded after\n" +
			"checkpoint CKPT, or the whole run's. Binary files use git's binary patch format.",
		Flags: []cli.Flag{runFlag("the run `RUN`"), jsonFlag,
			&cli.StringFlag{Name: "call", Usage: "only call `CALL`"},
			&cli.BoolFlag{Name: "stat", Usage: "print a diffstat instead of the patch"},
			&cli.StringSliceFlag{Name: "paths", Usage: "only paths matching `GLOB` (doublestar, repeatable)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usagef("diff takes at most one checkpoint")
			}
			wantJSON(c, e)
			var p ids
			o := diffOptions{run: p.run(c.String("run")), call: p.call(c.String("call")),
				since: c.Args().First(), stat: c.Bool("stat"), globs: c.StringSlice("paths")}
			if p.err != nil {
				return p.err
			}
			return runDiff(c.Context, e, o)
		},
	}
}

func runDiff(ctx context.Context, e *env, opts diffOptions) error {
	g, err := e.openRecords(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	var pick gitguard.RunPick
	resolve := func() (record.RunID, error) {
		var err error
		pick, err = pickRun(ctx, e, g, opts.run)
		return pick.ID, err
	}
	if opts.call != "" {
		resolve = func() (record.RunID, error) { return g.ResolveCallRun(ctx, opts.run, opts.call) }
	}
	runID, err := resolve()
	if err != nil {
		return err
	}
	o := gitguard.DiffOptions{Call: opts.call, Globs: opts.globs}
	if opts.since != "" {
		en, err := g.ResolveCheckpoint(ctx, runID, opts.since)
		if err != nil {
			return err
		}
		o.Since = &en
	}
	if err := o.Validate(); err != nil {
		return err
	}
	patches, err := g.Diff(ctx, runID, o)
	if err != nil {
		return err
	}
	if e.json {
		doc := protocol.NewDiffDoc(runID, patches)
		doc.RunPicked = picked(pick)
		return e.printJSON(doc)
	}
	if opts.stat {
		return printStat(e, patches)
	}
	for _, p := range patches {
		e.printf("%s", p.Text)
	}
	return nil
}

func printStat(e *env, patches []gitguard.NetPatch) error {
	width := 0
	for _, p := range patches {
		width = max(width, len(record.QuotePath(p.Path)))
	}
	var ta, td int
	for _, p := range patches {
		if p.Binary {
			e.printf(" %-*s | Bin\n", width, record.QuotePath(p.Path))
			continue
		}
		a, d := protocol.CountLines(p.Text)
		ta, td = ta+a, td+d
		bar := strings.Repeat("+", min(a, 40)) + strings.Repeat("-", min(d, 40))
		e.printf(" %-*s | %d %s\n", width, record.QuotePath(p.Path), a+d, bar)
	}
	e.printf(" %d file%s changed, %d insertion%s(+), %d deletion%s(-)\n",
		len(patches), plural(len(patches)), ta, plural(ta), td, plural(td))
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
