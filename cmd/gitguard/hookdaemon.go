package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
)

// An agent hook hands a tool use's events to the work tree's watch daemon
// when one runs: the daemon records them in its running process, so that
// a hook costs little more than starting a process. It answers with what
// the hook would have printed and its exit status. Whatever keeps the
// daemon from answering (none runs, another environment, it died
// meanwhile), the hook records the event itself; an event recorded twice
// that way is recognised as such (see agent.Handle), as a redelivered
// event is.

// handOffHook asks the work tree's watch daemon to record the event data.
// done is false when the hook must record it itself.
func handOffHook(ctx context.Context, e *env, s *agentSpec, o hookAgentOptions, data []byte) (done bool, err error) {
	if o.noWatch || e.getenv("GITGUARD_NO_DAEMON") == "1" || e.verbose || e.getenv("GITGUARD_DEBUG") == "1" ||
		e.getenv("GITGUARD_FAULT") != "" || e.getenv("GITGUARD_CPUPROFILE") != "" ||
		len(e.settings.exclude) > 0 || e.settings.maxFileSize != 0 {
		return false, nil // what this process was asked to do differently, it does itself
	}
	ev, rerr := s.read(bytes.NewReader(data), o.workspaceTools)
	if rerr != nil || ev.Warning != "" || (ev.Kind != agent.Pre && ev.Kind != agent.Post) {
		// Nothing to record, or a session's start or end: here, where
		// its messages and the daemon's own stop belong.
		return false, nil
	}
	req := gitguard.HookRequest{Agent: s.name, Event: data, FailClosed: o.failClosed, WorkspaceTools: o.workspaceTools, Env: gitguard.HookEnvKey()}
	find := ev.Cwd
	if e.dir != "" && e.dir != "." {
		abs, err := filepath.Abs(e.dir)
		if err != nil {
			return false, nil
		}
		req.Dir, find = abs, abs
	}
	if find == "" {
		find = "."
	}
	ans, err := gitguard.HandOffHook(ctx, find, e.getenv, req)
	if err != nil {
		if !errors.Is(err, gitguard.ErrNoDaemon) {
			e.log.Info("the watch daemon did not record the hook event; recording it here", "err", err)
		}
		return false, nil
	}
	io.WriteString(e.stderr, ans.Stderr)
	if ans.Exit != 0 {
		return true, &exitCodeError{ans.Exit}
	}
	return true, nil
}

// serveHooks makes the daemon d of workTree record agent hook events
// (handOffHook), each as `gitguard hook NAME` would in a process of its own
// started with the daemon's environment, and merge gitguard's packs once
// the events pause. The caller stops the merges that are returned when the
// daemon closes.
func serveHooks(ctx context.Context, d *gitguard.Daemon, e *env, workTree string) *idleMerger {
	merges := newIdleMerger(mergeIdle, func() {
		if ctx.Err() != nil {
			return
		}
		g, err := e.openAt(context.WithoutCancel(ctx), workTree)
		if err != nil {
			e.log.Info("watch daemon: open to merge packs", "err", err)
			return
		}
		defer g.Close()
		if err := g.MergePacks(); err != nil {
			e.log.Info("watch daemon: merge packs", "err", err)
		}
	})
	d.Handle(gitguard.HookOp, func(ctx context.Context, payload json.RawMessage) (json.RawMessage, error) {
		defer merges.poke()
		var req gitguard.HookRequest
		if err := json.Unmarshal(payload, &req); err != nil {
			return nil, fmt.Errorf("hook request: %w", err)
		}
		if req.Env != gitguard.HookEnvKey() {
			return nil, errors.New("the hook's environment differs from the daemon's")
		}
		i := slices.IndexFunc(agentSpecs, func(s *agentSpec) bool { return s.name == req.Agent })
		if i < 0 {
			return nil, fmt.Errorf("no agent %q", req.Agent)
		}
		s := agentSpecs[i]
		if err := daemonTakes(e, s, req, workTree); err != nil {
			return nil, err
		}
		var stderr bytes.Buffer
		he := &env{stdout: io.Discard, stderr: &stderr, dir: req.Dir, log: e.log, getenv: e.getenv}
		// The daemon runs already: nothing to start.
		o := hookAgentOptions{failClosed: req.FailClosed, workspaceTools: req.WorkspaceTools, noWatch: true, watchIdle: time.Minute}
		ans := gitguard.HookAnswer{}
		var code *exitCodeError
		if err := hookOutcome(he, s, o, handleAgentEvent(ctx, he, s, o, req.Event)); errors.As(err, &code) {
			ans.Exit = code.code
		} else if err != nil {
			return nil, err
		}
		ans.Stderr = stderr.String()
		return json.Marshal(ans)
	})
	return merges
}

// daemonTakes returns why the daemon serving workTree leaves the hook
// event req to the hook itself, nil when it records it. It records a tool
// use's start or end in its own work tree; a session's start or end, an
// event with a warning or one it cannot read has its messages, and a
// session's end the daemon's own stop, in the hook's process. A small hook
// client (cmd/gitguard-hook) hands every event over and leaves this check
// to the daemon.
func daemonTakes(e *env, s *agentSpec, req gitguard.HookRequest, workTree string) error {
	ev, err := s.read(bytes.NewReader(req.Event), req.WorkspaceTools)
	if err != nil || ev.Warning != "" || (ev.Kind != agent.Pre && ev.Kind != agent.Post) {
		return errors.New("not a tool use's start or end")
	}
	dir := req.Dir
	if dir == "" {
		dir = ev.Cwd
	}
	if !filepath.IsAbs(dir) {
		return errors.New("the event names no absolute folder")
	}
	if top, ok := gitguard.WorkTreeOf(dir, e.getenv); !ok || top != workTree {
		return errors.New("the event is for another work tree")
	}
	return nil
}
