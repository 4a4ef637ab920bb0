package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
)

// agentSpec is one agent adapter as the CLI offers it: "gitguard hook NAME"
// reads its hook events, "gitguard init NAME" installs its hooks. The
// adapters themselves live in agent/<name>.
type agentSpec struct {
	name  string // command name: "claude-code"
	title string // "Claude Code"

	hookUsage, hookDescription string
	// read reads one hook event; workspaceTools are the --workspace-tool names.
	read func(r io.Reader, workspaceTools []string) (*agent.Event, error)

	initUsage, initDescription string
	defaultCommand             string // the hook command init installs
	hasLocal, hasUser          bool   // --local, --user make sense
	// fragment is what init prints without --write.
	fragment func(o agent.InitOptions) ([]byte, error)
	// install computes the changes init --write makes.
	install func(o agent.InitOptions) ([]agent.Change, error)
	// next says when the agent picks the change up.
	next string
}

type hookAgentOptions struct {
	failClosed     bool
	workspaceTools []string
	noWatch        bool
	watchIdle      time.Duration
}

func newHookAgentCommand(e *env, s *agentSpec) *cli.Command {
	return &cli.Command{
		Name:      s.name,
		Usage:     s.hookUsage,
		UsageText: "gitguard hook " + s.name + " [--fail-closed] [--workspace-tool NAME]... < EVENT.json",
		Description: s.hookDescription + "\n\n" +
			"Before a whole-workspace tool use the hook starts the work tree's watch daemon\n" +
			"('gitguard watch --detach') if none runs, so that every later capture costs the\n" +
			"paths changed rather than a walk of the tree; it stops after --watch-idle\n" +
			"without a request, and when the run ends. --no-watch (or GITGUARD_NO_DAEMON=1)\n" +
			"starts none.\n\n" +
			"An event or tool gitguard does not know is not recorded, with one warning on\n" +
			"stderr. The hook never blocks the agent because of its own failure: it prints a\n" +
			"warning on stderr and exits 0. With --fail-closed (or GITGUARD_FAIL_CLOSED=1) it\n" +
			"exits 2 instead, on its failures and on unknown events and tools alike, which\n" +
			"makes the agent refuse the tool use.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "fail-closed", EnvVars: []string{"GITGUARD_FAIL_CLOSED"},
				Usage: "exit 2 (block the tool use) when the call cannot be recorded"},
			&cli.BoolFlag{Name: "no-watch", Usage: "start no watch daemon: whole-workspace captures walk the tree"},
			&cli.DurationFlag{Name: "watch-idle", Value: defaultIdle, EnvVars: []string{"GITGUARD_WATCH_IDLE"},
				Usage: "a watch daemon the hook starts stops after `DURATION` without a request"},
			&cli.StringSliceFlag{Name: "workspace-tool",
				Usage: "also record tool `NAME` (an MCP tool that edits files, say) as a whole-workspace call (repeatable)"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			if c.Duration("watch-idle") <= 0 {
				return usagef("--watch-idle must be positive")
			}
			return runHookAgent(c.Context, e, s, hookAgentOptions{failClosed: c.Bool("fail-closed"),
				workspaceTools: c.StringSlice("workspace-tool"), noWatch: c.Bool("no-watch"),
				watchIdle: c.Duration("watch-idle")})
		},
	}
}

// unknownEventError is an event or tool the adapter does not know: a
// warning, or, failing closed, a refusal.
type unknownEventError struct{ msg string }

func (e *unknownEventError) Error() string { return e.msg }

func runHookAgent(ctx context.Context, e *env, s *agentSpec, o hookAgentOptions) error {
	err := handleAgentEvent(ctx, e, s, o)
	if err == nil {
		return nil
	}
	var unknown *unknownEventError
	if errors.As(err, &unknown) {
		if o.failClosed {
			fmt.Fprintf(e.stderr, "gitguard: %s; the tool use is blocked because gitguard fails closed (GITGUARD_FAIL_CLOSED)\n", unknown.msg)
			return &exitCodeError{exitUsage}
		}
		fmt.Fprintf(e.stderr, "gitguard: warning: %s\n", unknown.msg)
		return nil
	}
	f := classify(err)
	if errors.Is(err, agent.ErrPayload) {
		f.hint = "the hook reads one " + s.title + " hook event as JSON on stdin; see 'gitguard hook " + s.name + " --help'"
	}
	if o.failClosed {
		fmt.Fprintf(e.stderr, "gitguard: %s; the tool use is blocked because gitguard fails closed (GITGUARD_FAIL_CLOSED)\n", f.err)
		if f.hint != "" {
			fmt.Fprintf(e.stderr, "\thint: %s\n", f.hint)
		}
		return &exitCodeError{exitUsage} // 2: the agent blocks the tool use
	}
	fmt.Fprintf(e.stderr, "gitguard: warning: %s; this tool use is not protected by gitguard\n", f.err)
	if f.hint != "" {
		fmt.Fprintf(e.stderr, "\thint: %s\n", f.hint)
	}
	return nil
}

func handleAgentEvent(ctx context.Context, e *env, s *agentSpec, o hookAgentOptions) error {
	shortLivedGC(e.getenv)
	ev, err := s.read(e.stdin, o.workspaceTools)
	if err != nil {
		return err
	}
	if ev.Warning != "" {
		// Said once, here; an event with a warning records nothing.
		return &unknownEventError{ev.Warning}
	}
	ao := agent.Options{Open: e.openAt, Dir: e.dir, Log: e.log}
	if !o.noWatch && e.getenv("GITGUARD_NO_DAEMON") != "1" {
		ao.StartDaemon = func(ctx context.Context, g *gitguard.Guard) error {
			_, err := spawnDaemon(ctx, g, o.watchIdle)
			return err
		}
	}
	res, err := agent.Handle(ctx, ev, ao)
	for _, w := range res.Warnings {
		fmt.Fprintf(e.stderr, "gitguard: warning: %s\n", w)
	}
	return err
}
