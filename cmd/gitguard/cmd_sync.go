package main

import (
	"strconv"

	"github.com/gitguard/gitguard/record"
	"github.com/urfave/cli/v2"
)

type syncOptions struct {
	remote string // "" means gitguard.remote, else origin
	force  bool
	dryRun bool
	batch  int
	runs   []record.RunID
	as     record.RunID // push --as: publish runs[0] (or the active run) as this new run
	// fallbackRemote is used instead of origin when remote is empty and
	// gitguard.remote unset (push --pre-push: where the user pushes).
	fallbackRemote string
}

func remoteArg(c *cli.Context) (string, error) {
	switch c.NArg() {
	case 0:
		return "", nil
	case 1:
		return c.Args().First(), nil
	}
	return "", usagef("%s takes at most one remote (got %d arguments)", c.Command.Name, c.NArg())
}

// runFlags parses the --run flags of a command.
func runFlags(c *cli.Context) ([]record.RunID, error) {
	var ids []record.RunID
	for _, s := range c.StringSlice("run") {
		id, err := record.ParseRunID(s)
		if err != nil {
			return nil, usagef("--run %q: %v", s, err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// sanitize makes a name from a remote safe to print on a terminal.
func sanitize(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
