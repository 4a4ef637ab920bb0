package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/hookserve"
)

// defaultIdle is how long a detached daemon waits for a request before it
// stops by itself.
const defaultIdle = 30 * time.Minute

type watchOptions struct {
	idle   time.Duration
	detach bool
}

func newWatchCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "watch",
		Usage:     "follow the work tree with a file watcher so snapshots cost what changed",
		UsageText: "gitguard watch [--idle DURATION] [--detach]\ngitguard watch status\ngitguard watch stop",
		Description: "Runs the work tree's watch daemon: it follows changes with inotify and answers\n" +
			"every gitguard process of this work tree that needs a whole-workspace snapshot\n" +
			"(snapshot, call start/finish, agent hooks, status, check), so each costs the paths\n" +
			"changed since the last one instead of a walk of the whole tree. Whenever the\n" +
			"watcher cannot vouch for every change (the kernel's queue overflowed, the index,\n" +
			"a .gitignore or the configuration changed) it walks the tree and arms a new\n" +
			"watcher; a process that finds no daemon walks itself. One daemon per work tree;\n" +
			"its socket is in .git/gitguard/watch/ and answers only your own user.\n" +
			"'gitguard run' serves one for the command it wraps, and an agent's hook starts\n" +
			"one at the first tool use it records. Agent hooks hand their events to it, so\n" +
			"that a hook costs little more than starting a process. GITGUARD_NO_DAEMON=1\n" +
			"makes a command walk (and a hook record) itself.\n\n" +
			"Without --detach it runs in the foreground until interrupted (or idle for\n" +
			"--idle); with --detach it starts in the background and prints its pid.",
		Flags: []cli.Flag{jsonFlag,
			&cli.DurationFlag{Name: "idle", Usage: "stop after `DURATION` without a request (0: never; --detach defaults to 30m)"},
			&cli.BoolFlag{Name: "detach", Aliases: []string{"d"}, Usage: "run in the background; return once it answers"},
		},
		Subcommands: []*cli.Command{
			watchControl(e, "status", "say whether a daemon serves this work tree, and what it did (exit 1 if none)", false),
			watchControl(e, "stop", "stop the work tree's daemon (exit 1 if none runs)", true),
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			o := watchOptions{idle: c.Duration("idle"), detach: c.Bool("detach")}
			if o.idle < 0 {
				return usagef("--idle must not be negative")
			}
			if o.detach && !c.IsSet("idle") {
				o.idle = defaultIdle
			}
			return runWatch(c.Context, e, o)
		},
	}
}

// watchControl is a subcommand that asks the running daemon for its
// status, and with stop also to stop.
func watchControl(e *env, name, usage string, stop bool) *cli.Command {
	desc := "Asks the watch daemon that serves this work tree (if any) for its state: its\n" +
		"pid, since when it runs, what it watches and how many snapshots it served."
	if stop {
		desc += " Then asks\nit to stop."
	}
	return &cli.Command{
		Name:        name,
		Usage:       usage,
		UsageText:   "gitguard watch " + name + " [--json]",
		Description: desc + "\nExits 1 when no daemon serves the work tree.",
		Flags:       []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			return runWatchStatus(c.Context, e, stop)
		},
	}
}

func runWatch(ctx context.Context, e *env, o watchOptions) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	if o.detach {
		st, err := spawnDaemon(ctx, g, o.idle)
		if err != nil {
			return err
		}
		return e.printDaemon(st, "watch daemon %d serves %s")
	}
	d, err := serveDaemon(ctx, e, g)
	if err != nil {
		return err
	}
	defer d.Close()
	defer heapProfiles(e.getenv, e.log.Info)()
	defer returnFreeMemory(returnMemoryEvery)()
	e.say("gitguard: watching %s (pid %d); stop with Ctrl-C or 'gitguard watch stop'", g.WorkTree(), os.Getpid())
	return d.Serve(ctx, o.idle) // nil when interrupted: stopping is what was asked
}

// serveDaemon makes g's watch daemon, recording agent hook events too,
// binds its socket and arms its watcher in the background; the caller runs
// Serve and closes it. It returns gitguard.ErrDaemonRunning when another
// process serves the work tree.
func serveDaemon(ctx context.Context, e *env, g *gitguard.Guard) (*hookserve.Daemon, error) {
	return hookserve.NewDaemon(ctx, g, e.hookServing())
}

func runWatchStatus(ctx context.Context, e *env, stop bool) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	st, err := g.WatchStatus(ctx, stop)
	if errors.Is(err, gitguard.ErrNoDaemon) {
		if e.json {
			if err := e.printJSON(jsonDaemon{Version: 1, Running: false, WorkTree: g.WorkTree()}); err != nil {
				return err
			}
		}
		return &foundError{fmt.Sprintf("no watch daemon serves %s", g.WorkTree())}
	}
	if err != nil {
		return err
	}
	if stop {
		return e.printDaemon(st, "stopped watch daemon %d of %s")
	}
	if err := e.printDaemon(st, "watch daemon %d serves %s"); err != nil {
		return err
	}
	if !e.json {
		e.printf("since %s: %d request(s), %d from the watcher, %d walk(s), %d hook event(s)\n", st.Since.Format(time.RFC3339), st.Requests, st.Watched, st.Walks, st.Ops)
		if st.LastWalk != "" {
			e.printf("last walk: %s\n", st.LastWalk)
		}
	}
	return nil
}

type jsonDaemon struct {
	Version  int       `json:"version"`
	Running  bool      `json:"running"`
	PID      int       `json:"pid,omitempty"`
	WorkTree string    `json:"worktree"`
	Since    time.Time `json:"since,omitzero"`
	Requests int64     `json:"requests"`
	Watched  int64     `json:"watched"`
	Walks    int64     `json:"walks"`
	Ops      int64     `json:"hook_events"`
	LastWalk string    `json:"last_walk,omitempty"`
}

func (e *env) printDaemon(st gitguard.DaemonStatus, text string) error {
	if e.json {
		return e.printJSON(jsonDaemon{Version: 1, Running: true, PID: st.PID, WorkTree: st.WorkTree, Since: st.Since,
			Requests: st.Requests, Watched: st.Watched, Walks: st.Walks, Ops: st.Ops, LastWalk: st.LastWalk})
	}
	e.printf(text+"\n", st.PID, st.WorkTree)
	return nil
}

// spawnDaemon starts `gitguard watch` for g's work tree in the background
// and returns once it answers (see hookserve.StartDaemon). A daemon
// already serving is left as it is.
func spawnDaemon(ctx context.Context, g *gitguard.Guard, idle time.Duration) (gitguard.DaemonStatus, error) {
	// The name gitguard was started by (git-guard under git, a test's
	// stand-in), else the file it runs from.
	return hookserve.StartDaemon(ctx, g, hookserve.StartOptions{Program: os.Args[0], Idle: idle})
}
