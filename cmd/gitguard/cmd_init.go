package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
)

type initAgentOptions struct {
	write, local, user, dryRun, mcp bool
	command                         string
}

func newInitCommand(e *env) *cli.Command {
	var names []string
	c := &cli.Command{
		Name:        "init",
		Description: "Prints (or writes) the configuration an agent needs to record its tool calls with gitguard.",
	}
	for _, s := range agentSpecs {
		names = append(names, s.name)
		c.Subcommands = append(c.Subcommands, newInitAgentCommand(e, s))
	}
	c.Usage = "set gitguard up for an agent: " + strings.Join(names, ", ")
	c.UsageText = "gitguard init " + strings.Join(names, "|") + " [--write [--local|--user] [--dry-run]] [--mcp]"
	return c
}

func newInitAgentCommand(e *env, s *agentSpec) *cli.Command {
	usage := "gitguard init " + s.name + " [--write"
	if s.hasLocal {
		usage += " [--local]"
	}
	if s.hasUser {
		usage += " [--user]"
	}
	usage += " [--dry-run]] [--command CMD] [--fail-closed] [--mcp]"
	flags := []cli.Flag{jsonFlag,
		&cli.BoolFlag{Name: "write", Usage: "merge the hooks into the agent's settings file in the work tree"},
		&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "with --write, print the merged settings and write nothing"},
		&cli.StringFlag{Name: "command", Usage: "the hook `CMD` (default: \"gitguard-hook " + s.name + "\" on Linux when gitguard-hook is installed beside gitguard, else \"" + s.defaultCommand + "\"; by absolute path where PATH does not find that program); a command whose program cannot be found is refused (exit 1)"},
		&cli.BoolFlag{Name: "fail-closed", Usage: "make the hook block a tool use it cannot record"},
		&cli.BoolFlag{Name: "mcp", Usage: "also register 'gitguard mcp' as an MCP server of the agent"},
	}
	if s.hasLocal {
		flags = append(flags, &cli.BoolFlag{Name: "local", Usage: "with --write, use the agent's project file that is not meant to be committed"})
	}
	if s.hasUser {
		flags = append(flags, &cli.BoolFlag{Name: "user", Usage: "with --write, use the agent's settings in your home folder (every project)"})
	}
	return &cli.Command{
		Name:        s.name,
		Usage:       s.initUsage,
		UsageText:   usage,
		Description: s.initDescription,
		Flags:       flags,
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			o := initAgentOptions{write: c.Bool("write"), local: s.hasLocal && c.Bool("local"),
				user: s.hasUser && c.Bool("user"), dryRun: c.Bool("dry-run"), mcp: c.Bool("mcp"),
				command: strings.TrimSpace(c.String("command"))}
			if !c.IsSet("command") {
				o.command = hookCommandFor(s, e.getenv)
			}
			if o.command == "" {
				return usagef("--command must not be empty")
			}
			if c.Bool("fail-closed") {
				o.command += " --fail-closed"
			}
			if (o.local || o.user || o.dryRun) && !o.write {
				return usagef("%s go with --write", writeOnlyFlags(s))
			}
			if o.local && o.user {
				return usagef("--local and --user choose different files; give one")
			}
			return runInitAgent(c.Context, e, s, o)
		},
	}
}

// writeOnlyFlags names the flags that go with --write: "--local and --dry-run".
func writeOnlyFlags(s *agentSpec) string {
	var names []string
	if s.hasLocal {
		names = append(names, "--local")
	}
	if s.hasUser {
		names = append(names, "--user")
	}
	if len(names) == 0 {
		return "--dry-run"
	}
	return strings.Join(names, ", ") + " and --dry-run"
}

type jsonInit struct {
	Version int            `json:"version"`
	Path    string         `json:"path"`
	Changed bool           `json:"changed"`
	Added   []string       `json:"added"`
	DryRun  bool           `json:"dry_run,omitempty"`
	Files   []jsonInitFile `json:"files,omitempty"` // every file, when there are several
}

type jsonInitFile struct {
	Path    string   `json:"path"`
	Changed bool     `json:"changed"`
	Added   []string `json:"added"`
}

// mcpCommand is the MCP server command beside a hook command: the same
// program, "mcp" instead of "hook AGENT ...", or gitguard beside the hook
// client gitguard-hook.
func mcpCommand(hook string) string {
	prog, ok := commandProgram(hook)
	switch {
	case !ok:
		return "gitguard mcp"
	case filepath.Base(prog) == "gitguard-hook":
		prog = strings.TrimSuffix(prog, "gitguard-hook") + "gitguard"
	case !strings.Contains(hook, " hook "):
		return "gitguard mcp"
	}
	return shellQuote(prog) + " mcp"
}

func runInitAgent(ctx context.Context, e *env, s *agentSpec, o initAgentOptions) error {
	ao := agent.InitOptions{Command: o.command, Local: o.local, MCP: o.mcp, MCPCommand: mcpCommand(o.command)}
	// A command the agent cannot run leaves it unguarded without a word:
	// never write one; print one only saying so.
	unrunnable := checkCommand(o.command, e.getenv)
	if unrunnable == nil && o.mcp {
		unrunnable = checkCommand(ao.MCPCommand, e.getenv)
	}
	if !o.write {
		out, err := s.fragment(ao)
		if err != nil {
			return err
		}
		if _, err = e.stdout.Write(out); err != nil {
			return err
		}
		return unrunnable
	}
	if unrunnable != nil {
		return unrunnable
	}
	if o.user {
		home := e.getenv("HOME")
		if home == "" {
			return usagef("--user needs HOME to be set")
		}
		ao.Dir = home
	} else {
		top, err := gitguard.FindWorkTree(ctx, e.dir)
		if err != nil {
			return err
		}
		ao.Dir = top
	}
	changes, err := s.install(ao)
	var se *agent.SettingsError
	switch {
	case errors.As(err, &se):
		return usagef("%v; fix it by hand, or print the settings with 'gitguard init %s' and add them yourself", err, s.name)
	case errors.Is(err, agent.ErrNotRegular):
		return usagef("%v", err)
	case err != nil:
		return err
	}
	res := jsonInit{Version: jsonVersion, Path: changes[0].Rel, Changed: len(changes[0].Added) > 0,
		Added: nonNil(changes[0].Added), DryRun: o.dryRun}
	if len(changes) > 1 {
		for _, c := range changes {
			res.Files = append(res.Files, jsonInitFile{Path: c.Rel, Changed: len(c.Added) > 0, Added: nonNil(c.Added)})
		}
	}
	where := ""
	if o.user {
		where = "~/"
	}
	for _, c := range changes {
		rel := where + c.Rel
		if o.dryRun {
			if !e.json {
				if len(changes) > 1 {
					e.say("%s:", rel)
				}
				if _, err := e.stdout.Write(c.After); err != nil {
					return err
				}
				if len(c.Added) == 0 {
					e.say("%s already runs gitguard for every event; nothing to change", rel)
				}
			}
			continue
		}
		if err := c.Write(); err != nil {
			return err
		}
		if e.json {
			continue
		}
		e.printf("%s\n", filepath.ToSlash(rel))
		if len(c.Added) == 0 {
			e.say("%s already runs gitguard for every event; nothing changed", rel)
		} else {
			e.say("added the gitguard hook for %s to %s; %s", strings.Join(c.Added, ", "), rel, s.next)
		}
	}
	if e.json {
		return e.printJSON(res)
	}
	if !o.dryRun {
		initChecks(ctx, e, s.name)
	}
	return nil
}
