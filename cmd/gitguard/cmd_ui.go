package main

import (
	"context"
	"errors"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/ui"
)

type uiOptions struct {
	run     record.RunID
	markers bool
}

func newUICommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "ui",
		Usage:     "browse the run's calls and undo or redo them by pressing a key",
		UsageText: "gitguard ui [--run RUN] [--conflict refuse|markers]   (also: gitguard undo -i)",
		Description: "A terminal view of the run's tool calls, newest first: time, tool, status, the\n" +
			"paths each changed with their state and added/removed lines; below, the selected\n" +
			"call's diff and what undoing it would do to each path, conflicts included, before\n" +
			"anything is written. It opens on the active run (else the newest of this work tree, said in the header; R picks).\n\n" +
			"Keys: up/down select · u undo the call · U undo it and every newer call · r redo\n" +
			"(put back what an undo took out) · m conflict markers on/off · / filter by path ·\n" +
			"R switch run · tab scroll the diff · ? help · q or ctrl+c quit. Every write shows\n" +
			"its plan and asks for y first; it is the same undo as 'gitguard undo', recorded\n" +
			"so r reverses it, and it keeps your edits. The view rereads when the run or the\n" +
			"files change. NO_COLOR=1 turns colour off (states are words either way).\n" +
			"Needs a terminal: scripts use ledger, status, diff and undo.",
		Flags: []cli.Flag{runFlag("open run `RUN`"),
			&cli.StringFlag{Name: "conflict", Value: "refuse", Usage: "start with overlapping hunks: refuse (leave the file) or markers"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			o, err := uiFlags(c)
			if err != nil {
				return err
			}
			return runUI(c.Context, e, o)
		},
	}
}

// uiFlags reads the flags ui shares with undo -i.
func uiFlags(c *cli.Context) (uiOptions, error) {
	run, err := record.ParseOptionalRunID(c.String("run"))
	if err != nil {
		return uiOptions{}, err
	}
	o := uiOptions{run: run}
	switch c.String("conflict") {
	case "refuse":
	case "markers":
		o.markers = true
	default:
		return o, usagef("--conflict takes refuse or markers, not %q", c.String("conflict"))
	}
	return o, nil
}

func runUI(ctx context.Context, e *env, o uiOptions) error {
	in, inOK := e.stdin.(*os.File)
	out, outOK := e.stdout.(*os.File)
	if !inOK || !outOK {
		return errNoTerminal
	}
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	color := e.getenv("NO_COLOR") == "" && e.getenv("TERM") != "dumb"
	err = ui.Run(ctx, g, in, out, ui.Options{Run: o.run, Color: color, Markers: o.markers})
	if errors.Is(err, ui.ErrNoTerminal) {
		return errNoTerminal
	}
	return err
}

var errNoTerminal = usagef("gitguard ui needs a terminal; in scripts use 'gitguard ledger', 'diff' and 'undo --dry-run'")
