package main

import (
	"github.com/gitguard/gitguard/patchstore/record"

	"context"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
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
		UsageText: "gitguard diff [--run ID] [--call ID | CKPT] [--stat] [--paths GLOB]",
		Description: "Prints the agent's net change per path as a git-style patch that `git apply`\n" +
			"accepts against the before state: one call's (--call), everything recorded after\n" +
			"checkpoint CKPT, or the whole run's. Binary files use git's binary patch format.",
		Flags: []cli.Flag{runFlag("the run `ID`"), jsonFlag,
			&cli.StringFlag{Name: "call", Usage: "only call `ID`"},
			&cli.BoolFlag{Name: "stat", Usage: "print a diffstat instead of the patch"},
			&cli.StringSliceFlag{Name: "paths", Usage: "only paths matching `GLOB` (doublestar, repeatable)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usagef("diff takes at most one checkpoint")
			}
			if c.NArg() == 1 && c.IsSet("call") {
				return usagef("give either --call or a checkpoint, not both")
			}
			wantJSON(c, e)
			return runDiff(c.Context, e, diffOptions{run: record.RunID(c.String("run")), call: record.CallID(c.String("call")),
				since: c.Args().First(), stat: c.Bool("stat"), globs: c.StringSlice("paths")})
		},
	}
}

type jsonDiff struct {
	Version int            `json:"version"`
	Run     record.RunID   `json:"run"`
	Files   []jsonDiffFile `json:"files"`
}

type jsonDiffFile struct {
	Path     string          `json:"path"`
	Before   string          `json:"before"`
	After    string          `json:"after"`
	Calls    []record.CallID `json:"calls"`
	Added    int             `json:"added"`
	Deleted  int             `json:"deleted"`
	Binary   bool            `json:"binary,omitempty"`
	Oversize bool            `json:"oversize,omitempty"`
	Patch    string          `json:"patch"`
}

func runDiff(ctx context.Context, e *env, opts diffOptions) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	runID, err := g.ResolveRun(ctx, opts.run, false)
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
	patches, err := g.Diff(ctx, runID, o)
	if err != nil {
		return err
	}
	if e.json {
		out := jsonDiff{Version: jsonVersion, Run: runID, Files: []jsonDiffFile{}}
		for _, p := range patches {
			a, d := countLines(p.Text)
			out.Files = append(out.Files, jsonDiffFile{Path: p.Path, Before: stateString(p.Before), After: stateString(p.After),
				Calls: p.Calls, Added: a, Deleted: d, Binary: p.Binary, Oversize: p.Oversize, Patch: string(p.Text)})
		}
		return e.printJSON(out)
	}
	if opts.stat {
		return printStat(e, patches)
	}
	for _, p := range patches {
		e.printf("%s", p.Text)
	}
	return nil
}

// countLines counts added and deleted lines of a unified diff.
func countLines(text []byte) (added, deleted int) {
	inHunk := false
	for _, l := range strings.Split(string(text), "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			inHunk = true
		case !inHunk:
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			deleted++
		}
	}
	return added, deleted
}

func printStat(e *env, patches []gitguard.NetPatch) error {
	width := 0
	for _, p := range patches {
		width = max(width, len(p.Path))
	}
	var ta, td int
	for _, p := range patches {
		if p.Binary {
			e.printf(" %-*s | Bin\n", width, p.Path)
			continue
		}
		a, d := countLines(p.Text)
		ta, td = ta+a, td+d
		bar := strings.Repeat("+", min(a, 40)) + strings.Repeat("-", min(d, 40))
		e.printf(" %-*s | %d %s\n", width, p.Path, a+d, bar)
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
