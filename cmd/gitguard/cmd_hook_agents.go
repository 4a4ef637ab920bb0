package main

import "github.com/urfave/cli/v2"

// hookSubcommands are the subcommands of "gitguard hook": agent hook
// adapters and git hook management register themselves here.
var hookSubcommands []func(*env) *cli.Command

func newHookCommand(e *env) *cli.Command {
	c := &cli.Command{
		Name:  "hook",
		Usage: "hooks: agent hook adapters and the git pre-commit hook",
	}
	for _, f := range hookSubcommands {
		c.Subcommands = append(c.Subcommands, f(e))
	}
	return c
}

func init() {
	commandSets = append(commandSets, func(e *env) []*cli.Command {
		if len(hookSubcommands) == 0 {
			return nil
		}
		return []*cli.Command{newHookCommand(e)}
	})
}
