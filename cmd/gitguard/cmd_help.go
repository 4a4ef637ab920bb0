package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// newHelpCommand makes "gitguard help CMD [SUB]" print the help that
// "gitguard CMD [SUB] --help" prints.
func newHelpCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show the help of a command",
		UsageText: "gitguard help [COMMAND [SUBCOMMAND]]",
		Hidden:    true,
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) == 0 {
				return cli.ShowAppHelp(c)
			}
			cmds := c.App.Commands
			var cmd *cli.Command
			for _, a := range args {
				next := findCommand(cmds, a)
				if next == nil || next.Hidden {
					return usagef("no help for %q: no such command (gitguard --help lists them)", strings.Join(args, " "))
				}
				cmd, cmds = next, next.Subcommands
			}
			if cmd.HelpName == "" {
				cmd.HelpName = c.App.Name + " " + strings.Join(args, " ")
			}
			tmpl := cli.CommandHelpTemplate
			if len(cmd.Subcommands) > 0 {
				tmpl = cli.SubcommandHelpTemplate
			}
			cli.HelpPrinter(e.stdout, tmpl, cmd)
			return nil
		},
	}
}

func init() {
	commandSets = append(commandSets, func(e *env) []*cli.Command {
		return []*cli.Command{newHelpCommand(e)}
	})
}
