package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// This is the one place outside internal/git that starts a process: the
// agent the user asked gitguard to wrap.

type wrapOptions struct {
	run               record.RunID
	call              record.CallID
	tool              string
	noRecord, noWatch bool
	argv              []string
}

func newRunCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run an agent (aider, a script) as one recorded call",
		UsageText: "gitguard run [--run RUN] [--call CALL] [--no-wrap-record] -- CMD [ARGS...]",
		Description: "Starts a call with a whole-workspace before state, runs CMD with stdin, stdout\n" +
			"and stderr passed through, and on exit finishes the call with every changed path\n" +
			"as the agent's patch. Ctrl-C reaches CMD, not gitguard. If gitguard itself is\n" +
			"killed the call stays started, and 'gitguard resume' reports it uncertain.\n" +
			"CMD sees GITGUARD_RUN (and GITGUARD_CALL), so gitguard commands it runs record\n" +
			"into the same run; with --no-wrap-record only those are recorded (one call per\n" +
			"agent turn, say). The exit status is CMD's.",
		Flags: []cli.Flag{runFlag("record into run `RUN`"),
			&cli.StringFlag{Name: "call", Usage: "the wrapping call's `CALL` (default wrap-N)"},
			&cli.StringFlag{Name: "tool", Usage: "the tool name to record (default: CMD's name)"},
			&cli.BoolFlag{Name: "no-wrap-record", Usage: "do not record the wrapping call; only export GITGUARD_RUN"},
			&cli.BoolFlag{Name: "no-watch", Usage: "serve no watch daemon: snapshots walk the whole work tree"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usagef("run needs a command: gitguard run -- CMD [ARGS...]")
			}
			var p ids
			o := wrapOptions{run: p.run(c.String("run")), call: p.call(c.String("call")), tool: c.String("tool"),
				noRecord: c.Bool("no-wrap-record"), noWatch: c.Bool("no-watch"), argv: c.Args().Slice()}
			if p.err != nil {
				return p.err
			}
			return runWrap(c.Context, e, o)
		},
	}
}

// exitCodeError carries the wrapped command's exit status out of run.
type exitCodeError struct{ code int }

func (e *exitCodeError) Error() string { return fmt.Sprintf("command exited with status %d", e.code) }

func runWrap(ctx context.Context, e *env, o wrapOptions) error {
	// The wrapped command decides when to stop; gitguard must record its end
	// even after a Ctrl-C, so nothing here is cancelled by a signal.
	ctx = context.WithoutCancel(ctx)
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	runID, err := g.EnsureRun(ctx, o.run)
	if err != nil {
		return err
	}
	if _, err := exec.LookPath(o.argv[0]); err != nil {
		return usagef("%s: command not found", o.argv[0])
	}
	env := append(os.Environ(), "GITGUARD_RUN="+string(runID))
	// A watch daemon follows the command's changes, so that the call's end
	// and every gitguard process the command runs cost what changed, not a
	// walk of the whole tree; whenever it cannot vouch for every change it
	// walks. If another process serves the work tree already, use that one.
	if !o.noWatch {
		d, err := serveDaemon(ctx, e, g)
		switch {
		case err == nil:
			defer d.Close()
			go func() {
				if err := d.Serve(ctx, 0); err != nil {
					e.log.Info("watch daemon stopped serving", "err", err)
				}
			}()
		case errors.Is(err, gitguard.ErrDaemonRunning):
		case errors.Is(err, gitguard.ErrNoWatcher):
			e.say("gitguard: %v", err) // one line: macOS and Windows always walk
		default:
			e.log.Info("no watch daemon; snapshots walk the work tree", "err", err)
		}
	}
	if !o.noRecord {
		if o.call == "" {
			run, err := g.ReadRun(ctx, runID)
			if err != nil {
				return err
			}
			if o.call, err = record.ParseCallID(fmt.Sprintf("wrap-%03d", run.Checkpoint.Seq+1)); err != nil {
				return err
			}
		}
		if o.tool == "" {
			o.tool = filepath.Base(o.argv[0])
		}
		if _, err := g.CallStart(ctx, runID, gitguard.CallOptions{CallID: o.call, Tool: o.tool,
			Input: strings.Join(o.argv, " "), Idempotency: record.Conditional}); err != nil {
			return err
		}
		env = append(env, "GITGUARD_CALL="+string(o.call))
		e.say("gitguard: recording %s as call %s of run %s", o.argv[0], o.call, runID)
	}
	code, runErr := runChild(e, o.argv, env)
	// The agent is gone: calls it started in the run and never finished
	// (it was killed, or crashed) end here, not at a later resume.
	ev := gitguard.Evidence{Kind: record.EvidenceAgentExit, What: fmt.Sprintf("the wrapped agent %s exited (status %d)", filepath.Base(o.argv[0]), code)}
	if closed, err := g.CloseOpenCalls(ctx, runID, ev, o.call); err != nil {
		e.say("gitguard: warning: calls the agent left started are not closed: %v", err)
	} else if len(closed) > 0 {
		e.say("gitguard: the agent exited leaving %s started; closed as uncertain ('gitguard status' shows what is attributed to them)", record.JoinCallIDs(closed, ", "))
	}
	if !o.noRecord {
		fo := gitguard.FinishOptions{Status: record.StatusSucceeded, ExitCode: &code,
			Result: fmt.Sprintf("exit status %d", code)}
		if code != 0 {
			fo.Status = record.StatusFailed
		}
		if runErr != nil {
			fo.Status, fo.Result = record.StatusUncertain, runErr.Error()
		}
		run, err := g.CallFinish(ctx, runID, o.call, fo)
		if err != nil {
			return err
		}
		e.say("gitguard: call %s %s, %d path(s) changed; 'gitguard undo' reverts them", o.call, fo.Status, len(run.Calls[o.call].Patches))
	}
	if runErr != nil {
		return runErr
	}
	if code != 0 {
		return &exitCodeError{code}
	}
	return nil
}

// runChild runs argv with the streams passed through and returns its exit
// status (128+N when a signal N killed it). A terminal's Ctrl-C reaches the
// child directly (same process group); on Unix signals sent to gitguard
// alone are forwarded: SIGTERM, SIGHUP and SIGQUIT always, SIGINT when
// stdin is not a terminal (a supervisor's kill -INT). See proc_*.go.
func runChild(e *env, argv []string, env []string) (int, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	if d := e.dir; d != "" && d != "." {
		cmd.Dir = d
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, childSignals...)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 127, fmt.Errorf("start %s: %w", argv[0], err)
	}
	interactive := false
	if f, ok := e.stdin.(*os.File); ok {
		interactive = term.IsTerminal(int(f.Fd()))
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				forwardSignal(cmd.Process, s, interactive)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	return 127, fmt.Errorf("run %s: %w", argv[0], err)
}
