package main

import (
	"strconv"

	"github.com/urfave/cli/v2"
)

type syncOptions struct {
	remote string
	force  bool
	dryRun bool
}

func remoteArg(c *cli.Context) (string, error) {
	switch c.NArg() {
	case 0:
		return "origin", nil
	case 1:
		return c.Args().First(), nil
	}
	return "", usagef("%s takes at most one remote (got %d arguments)", c.Command.Name, c.NArg())
}

// sanitize makes a name from a remote safe to print on a terminal.
func sanitize(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
