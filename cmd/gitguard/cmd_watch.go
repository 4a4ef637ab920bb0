package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
)

// This file starts the one other process gitguard starts itself: a
// detached watch daemon (gitguard watch --detach).

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
	e.say("gitguard: watching %s (pid %d); stop with Ctrl-C or 'gitguard watch stop'", g.WorkTree(), os.Getpid())
	return d.Serve(ctx, o.idle) // nil when interrupted: stopping is what was asked
}

// servedDaemon is the watch daemon this process serves, with the pack
// merges it runs between hook events.
type servedDaemon struct {
	*gitguard.Daemon
	merges *idleMerger
}

// Close stops serving and waits for a pack merge under way.
func (d *servedDaemon) Close() error {
	err := d.Daemon.Close()
	d.merges.stop()
	return err
}

// serveDaemon makes g's watch daemon, binds its socket and arms its
// watcher in the background, so that the first client is served from it
// rather than after a walk; the caller runs Serve and closes it. It returns
// gitguard.ErrDaemonRunning when another process serves the work tree.
func serveDaemon(ctx context.Context, e *env, g *gitguard.Guard) (*servedDaemon, error) {
	reopen := func() (*gitguard.Guard, error) {
		return e.openAt(context.WithoutCancel(ctx), g.WorkTree())
	}
	d := &servedDaemon{Daemon: g.NewDaemon(reopen)}
	d.merges = serveHooks(ctx, d.Daemon, e, g.WorkTree())
	if err := d.Listen(); err != nil {
		d.Close()
		return nil, err
	}
	go func() {
		if _, err := d.Snapshot(ctx); err != nil && ctx.Err() == nil {
			e.log.Info("watch daemon: first snapshot", "err", err)
		}
	}()
	return d, nil
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

// spawnDaemon starts `gitguard watch` for g's work tree in the background,
// in a session of its own (a terminal's signals and the end of the agent's
// hook do not reach it), logging to .git/gitguard/watch/daemon.log, and
// returns once it answers. A daemon already serving is left as it is.
func spawnDaemon(ctx context.Context, g *gitguard.Guard, idle time.Duration) (gitguard.DaemonStatus, error) {
	if st, err := g.WatchStatus(ctx, false); err == nil {
		return st, nil
	}
	if err := g.WatchAvailable(); err != nil {
		return gitguard.DaemonStatus{}, fmt.Errorf("start watch daemon: %w", err)
	}
	// The name gitguard was started by (git-guard under git, a test's
	// stand-in), else the file it runs from.
	self, err := exec.LookPath(os.Args[0])
	if err != nil {
		if self, err = os.Executable(); err != nil {
			return gitguard.DaemonStatus{}, fmt.Errorf("start watch daemon: %w", err)
		}
	}
	logDir := filepath.Dir(g.WatchSocket())
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return gitguard.DaemonStatus{}, fmt.Errorf("start watch daemon: %w", err)
	}
	logFile, err := os.OpenFile(filepath.Join(logDir, "daemon.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return gitguard.DaemonStatus{}, fmt.Errorf("start watch daemon: %w", err)
	}
	defer logFile.Close()
	cmd := exec.Command(self, "-C", g.WorkTree(), "watch", "--idle", idle.String())
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = detachedAttr()
	if err := cmd.Start(); err != nil {
		return gitguard.DaemonStatus{}, fmt.Errorf("start watch daemon: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if st, err := g.WatchStatus(ctx, false); err == nil {
			return st, nil
		}
		select {
		case err := <-exited:
			// Another daemon won the race for the lock: use that one.
			if st, serr := g.WatchStatus(ctx, false); serr == nil {
				return st, nil
			}
			return gitguard.DaemonStatus{}, fmt.Errorf("start watch daemon: it exited (%w); see %s", err, logFile.Name())
		case <-ctx.Done():
			return gitguard.DaemonStatus{}, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return gitguard.DaemonStatus{}, fmt.Errorf("start watch daemon: no answer after 10s; see %s", logFile.Name())
}
