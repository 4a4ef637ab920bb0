package main

import "github.com/urfave/cli/v2"

func newRedoCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "redo",
		Usage:     "put back what the newest undo changed",
		UsageText: "gitguard redo [--call UNDO_CALL] [--run RUN] [--dry-run]",
		Description: "Undoes the newest undo that changed a file and is still in effect (or undo call\n" +
			"UNDO_CALL from 'gitguard ledger'), restoring exactly the paths it changed; says\n" +
			"'nothing to redo' when there is none. Edits made since the undo are kept as undo\n" +
			"keeps them.",
		Flags: []cli.Flag{runFlag("the run `RUN`"), jsonFlag,
			&cli.StringFlag{Name: "call", Usage: "redo undo call `CALL`"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print the plan and write nothing"},
			&cli.StringFlag{Name: "conflict", Value: "refuse", Usage: "on overlapping hunks: refuse (leave the file) or markers"},
			&cli.StringSliceFlag{Name: "paths", Usage: "only paths matching `GLOB` (doublestar, repeatable)"},
		},
		Action: func(c *cli.Context) error {
			return undoAction(c, e, true)
		},
	}
}
