package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// unknownCommand finds the first command or subcommand in args that names
// nothing: "gitguard staus" or "gitguard call strat". It returns the
// usage error to report, with the closest names as suggestions, or nil.
func unknownCommand(app *cli.App, args []string) error {
	flags, cmds := app.Flags, app.Commands
	var path []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		if strings.HasPrefix(a, "-") {
			i += flagArity(flags, a) - 1
			continue
		}
		if len(path) == 0 && a == "help" {
			return nil
		}
		c := findCommand(cmds, a)
		if c == nil {
			if len(path) > 0 && !needsSubcommand(findPath(app, path)) {
				return nil // a positional argument of the command
			}
			msg := "unknown command " + quoteCmd(append(path, a))
			if s := closest(a, cmds); len(s) > 0 {
				msg += "; did you mean " + strings.Join(quoteAll(path, s), " or ") + "?"
			}
			return usagef("%s", msg)
		}
		path = append(path, a)
		if len(c.Subcommands) == 0 {
			return nil
		}
		flags, cmds = c.Flags, c.Subcommands
	}
	return nil
}

// needsSubcommand reports whether c does nothing by itself: its positional
// arguments can only be subcommand names.
func needsSubcommand(c *cli.Command) bool {
	return c != nil && len(c.Subcommands) > 0 && c.Action == nil
}

func findPath(app *cli.App, path []string) *cli.Command {
	cmds := app.Commands
	var c *cli.Command
	for _, p := range path {
		if c = findCommand(cmds, p); c == nil {
			return nil
		}
		cmds = c.Subcommands
	}
	return c
}

// closest returns the names among cmds within two edits of name, or that
// start with it, best first.
func closest(name string, cmds []*cli.Command) []string {
	best, out := 3, []string(nil)
	for _, c := range cmds {
		if c.Hidden {
			continue
		}
		d := editDistance(name, c.Name)
		if strings.HasPrefix(c.Name, name) && len(name) >= 2 {
			d = min(d, 1)
		}
		switch {
		case d < best:
			best, out = d, []string{c.Name}
		case d == best:
			out = append(out, c.Name)
		}
	}
	return out
}

// editDistance is the Levenshtein distance of a and b, with a swap of two
// neighbouring letters counted as one edit (as git's suggestions do).
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

func quoteCmd(path []string) string { return "'" + strings.Join(path, " ") + "'" }

func quoteAll(path, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = quoteCmd(append(append([]string{}, path...), n))
	}
	return out
}
