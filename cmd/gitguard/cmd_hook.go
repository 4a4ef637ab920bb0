package main

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard/hooks"
)

type hookOptions struct {
	uninstall bool
	force     bool
	dryRun    bool
	prePush   bool // the pre-push hook instead of pre-commit
}

// newGitHookCommands returns "hook install" and "hook uninstall". The hook
// lives where git looks for hooks: core.hooksPath if set (relative to the
// top of the work tree), else the hooks folder of the repository, which
// linked worktrees share.
func newGitHookCommands(e *env) []*cli.Command {
	dry := &cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "say what would change, change nothing"}
	prePush := &cli.BoolFlag{Name: "pre-push", Usage: "the pre-push hook that pushes runs with your pushes, instead of pre-commit"}
	return []*cli.Command{
		{
			Name:      "install",
			Usage:     "install the pre-commit hook, chaining to any hook already there",
			UsageText: "gitguard hook install [--pre-push] [--force] [-n]",
			Description: "Installs a pre-commit hook that runs 'gitguard check --staged' and stops the\n" +
				"commit when the check finds something (exit 1) or an integrity failure (3).\n" +
				"An existing pre-commit hook is never overwritten: it is renamed to\n" +
				"pre-commit" + hooks.SavedSuffix + " and the new hook runs it first, exactly as\n" +
				"git would have. If gitguard is not on PATH, or the check itself cannot run,\n" +
				"the hook prints a warning and lets the commit through (set\n" +
				"GITGUARD_HOOK_STRICT=1 to stop it instead). Installing twice is installing once.\n" +
				"--force is needed only when both a foreign pre-commit hook and a saved\n" +
				"original exist: the saved one is moved to a numbered backup, never deleted.\n\n" +
				"With --pre-push it installs, the same way, a pre-push hook instead (opt-in):\n" +
				"on every 'git push' it pushes, in a separate push of run refs only, the runs\n" +
				"whose work is in the commits being pushed (the run's newest checkpoint names\n" +
				"one of them as HEAD, or the commit they grow from), each at its newest\n" +
				"checkpoint, to gitguard.remote if set, else to the same remote. If that fails\n" +
				"it warns and your push goes on (GITGUARD_HOOK_STRICT=1 stops it).",
			Flags: []cli.Flag{&cli.BoolFlag{Name: "force", Usage: "go on when a foreign hook and a saved original both exist"}, prePush, dry, jsonFlag},
			Action: func(c *cli.Context) error {
				if err := noArgs(c); err != nil {
					return err
				}
				wantJSON(c, e)
				return runHook(c.Context, e, hookOptions{force: c.Bool("force"), dryRun: c.Bool("dry-run"), prePush: c.Bool("pre-push")})
			},
		},
		{
			Name:      "uninstall",
			Usage:     "remove gitguard's pre-commit hook and restore the original",
			UsageText: "gitguard hook uninstall [--pre-push] [-n]",
			Description: "Removes the hook 'gitguard hook install' wrote and renames the saved original\n" +
				"back, byte for byte and with its mode. A pre-commit hook that is not\n" +
				"gitguard's is left alone (exit 0; exit 2 if a saved original exists too).",
			Flags: []cli.Flag{prePush, dry, jsonFlag},
			Action: func(c *cli.Context) error {
				if err := noArgs(c); err != nil {
					return err
				}
				wantJSON(c, e)
				return runHook(c.Context, e, hookOptions{uninstall: true, dryRun: c.Bool("dry-run"), prePush: c.Bool("pre-push")})
			},
		},
	}
}

func runHook(ctx context.Context, e *env, opts hookOptions) error {
	dir, err := hooks.Dir(ctx, e.dir)
	if err != nil {
		return err
	}
	hopts := hooks.Options{DryRun: opts.dryRun, Force: opts.force}
	name := hooks.Name
	if opts.prePush {
		hopts.Hook, name = hooks.PrePush, hooks.PrePush
	}
	var res hooks.Result
	if opts.uninstall {
		res, err = hooks.Uninstall(dir, hopts)
	} else {
		res, err = hooks.Install(dir, hopts)
	}
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(jsonHook{Version: jsonVersion, Action: string(res.Action), Hook: res.State.Path,
			Saved: savedPath(res), Backup: res.Backup, DryRun: opts.dryRun})
	}
	would := ""
	if opts.dryRun {
		would = "would be "
	}
	st := res.State
	switch res.Action {
	case hooks.Installed:
		e.say("%s hook %sinstalled: %s", name, would, st.Path)
	case hooks.Chained:
		e.say("%s hook %sinstalled: %s; it runs your hook first, saved as %s", name, would, st.Path, st.SavedPath())
		if res.Backup != "" {
			e.say("the previously saved hook was kept as %s", res.Backup)
		}
	case hooks.Upgraded:
		e.say("%s hook %supgraded: %s", name, would, st.Path)
	case hooks.AlreadyDone:
		e.say("%s hook already installed: %s", name, st.Path)
	case hooks.Restored:
		e.say("%s hook %sremoved; your original hook %srestored: %s", name, would, would, st.Path)
	case hooks.Removed:
		e.say("%s hook %sremoved: %s", name, would, st.Path)
	case hooks.NothingToUndo:
		if st.Hook {
			e.say("the %s hook in %s is not gitguard's; left alone, nothing to do", name, st.Dir)
		} else {
			e.say("no gitguard %s hook in %s; nothing to do", name, st.Dir)
		}
	}
	return nil
}

func savedPath(res hooks.Result) string {
	if res.Action == hooks.Chained || res.State.Saved {
		return res.State.SavedPath()
	}
	return ""
}

type jsonHook struct {
	Version int    `json:"version"`
	Action  string `json:"action"`
	Hook    string `json:"hook"`
	Saved   string `json:"saved,omitempty"`
	Backup  string `json:"backup,omitempty"`
	DryRun  bool   `json:"dry_run,omitempty"`
}

func newHookCommand(e *env) *cli.Command {
	c := &cli.Command{
		Name:      "hook",
		Usage:     "agent hook adapters and the git pre-commit hook",
		UsageText: "gitguard hook install|uninstall | gitguard hook AGENT < EVENT.json",
		Description: "install/uninstall manage the git pre-commit hook that runs 'gitguard check --staged';\n" +
			"the agent adapters (claude-code, codex, gemini, opencode, qwen, ...) turn an agent's hook events\n" +
			"into recorded calls; set them up with 'gitguard init AGENT --write'.",
	}
	c.Subcommands = newGitHookCommands(e)
	for _, s := range agentSpecs {
		c.Subcommands = append(c.Subcommands, newHookAgentCommand(e, s))
	}
	return c
}
