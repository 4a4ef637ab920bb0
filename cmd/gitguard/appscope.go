package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// invokedCommand returns the top-level command args run, or nil when
// they name none (bare gitguard, --help, an unknown name) or name one
// that lists the flags of every command (completion).
//
// Only that command gets the global flags that may follow a command name
// (withLocalGlobals): giving them to all twenty-odd commands costs every
// process, agent hooks included, about a millisecond of flag-name parsing
// and help-text formatting in urfave/cli (each flag's names go through a
// regular expression, and a command with a flag category has every flag's
// help formatted at setup) for commands that do not run.
func invokedCommand(app *cli.App, args []string) *cli.Command {
	args = helpTopicArgs(app, args)
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			i += flagArity(app.Flags, a) - 1
			continue
		}
		c := findCommand(app.Commands, a)
		if c == nil || c.Name == "completion" {
			return nil
		}
		return c
	}
	return nil
}
