package main

import (
	"bytes"
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
			"Before the first tool use it records, the hook starts the work tree's watch\n" +
			"daemon ('gitguard watch --detach') if none runs, so that whole-workspace captures\n" +
			"cost the paths changed rather than a walk of the tree; it stops after\n" +
			"--watch-idle without a request, and when the run ends. --no-watch (or\n" +
			"GITGUARD_NO_DAEMON=1) starts none. While a daemon serves the work tree, the hook\n" +
			"hands the session's events to it (its tool uses, its start and end), which\n" +
			"records them in its running process (the same records, messages and exit\n" +
			"status), and merges the packs they wrote when they pause; the daemon stops\n" +
			"once it has answered the end of the run that started it. A hook whose\n" +
			"environment differs from the daemon's, or that\n" +
			"finds none answering, records them itself.\n\n" +
			"On Linux, 'gitguard-hook " + s.name + "' (installed beside gitguard) does the\n" +
			"same and starts in half the time: a small program that hands the session's\n" +
			"events to the daemon and runs this command for everything else.\n\n" +
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
	shortLivedGC(e.getenv)
	// Read once: the event goes to the watch daemon, or is handled here.
	var data []byte
	var err error
	if e.stdin != nil {
		data, err = io.ReadAll(io.LimitReader(e.stdin, agent.MaxPayload+1))
	}
	if err != nil {
		return hookOutcome(e, s, o, fmt.Errorf("read hook event: %w", err))
	}
	if done, err := handOffHook(ctx, e, s, o, data); done {
		return err
	}
	return hookOutcome(e, s, o, handleAgentEvent(ctx, e, s, o, data))
}

// hookOutcome says what a hook's failure means: a warning on stderr and
// exit 0, or, failing closed, exit 2 so that the agent refuses the tool use.
func hookOutcome(e *env, s *agentSpec, o hookAgentOptions, err error) error {
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

// handleAgentEvent records one hook event, data as the agent wrote it.
func handleAgentEvent(ctx context.Context, e *env, s *agentSpec, o hookAgentOptions, data []byte) error {
	ev, err := s.read(bytes.NewReader(data), o.workspaceTools)
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
