package main

import "github.com/urfave/cli/v2"

// hookSubcommands are the subcommands of "gitguard hook": agent hook
// adapters and git hook management register themselves here.
var hookSubcommands []func(*env) *cli.Command

func newHookCommand(e *env) *cli.Command {
	c := &cli.Command{
		Name:      "hook",
		Usage:     "agent hook adapters and the git pre-commit hook",
		UsageText: "gitguard hook install|uninstall | gitguard hook AGENT < EVENT.json",
		Description: "install/uninstall manage the git pre-commit hook that runs 'gitguard check --staged';\n" +
			"the agent adapters (claude-code, codex, gemini, opencode) turn an agent's hook events\n" +
			"into recorded calls; set them up with 'gitguard init AGENT --write'.",
	}
	for _, f := range hookSubcommands {
		c.Subcommands = append(c.Subcommands, f(e))
	}
	for _, s := range agentSpecs {
		c.Subcommands = append(c.Subcommands, newHookAgentCommand(e, s))
	}
	return c
}

func init() {
	commandSets = append(commandSets, func(e *env) []*cli.Command {
		if len(hookSubcommands) == 0 && len(agentSpecs) == 0 {
			return nil
		}
		return []*cli.Command{newHookCommand(e)}
	})
}
