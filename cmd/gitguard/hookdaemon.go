package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/hookserve"
)

// An agent hook hands a tool use's events to the work tree's watch daemon
// when one runs: the daemon records them in its running process, so that
// a hook costs little more than starting a process (package hookserve). It
// answers with what the hook would have printed and its exit status.
// Whatever keeps the daemon from answering (none runs, another
// environment, it died meanwhile), the hook records the event itself; an
// event recorded twice that way is recognised as such (see agent.Handle),
// as a redelivered event is.

// handOffHook asks the work tree's watch daemon to record the event data.
// done is false when the hook must record it itself.
func handOffHook(ctx context.Context, e *env, s *agentSpec, o hookAgentOptions, data []byte) (done bool, err error) {
	if o.noWatch || e.getenv("GITGUARD_NO_DAEMON") == "1" || e.verbose || e.getenv("GITGUARD_DEBUG") == "1" ||
		e.getenv("GITGUARD_FAULT") != "" || e.getenv("GITGUARD_CPUPROFILE") != "" ||
		len(e.settings.exclude) > 0 || e.settings.maxFileSize != 0 {
		return false, nil // what this process was asked to do differently, it does itself
	}
	ev, rerr := s.read(bytes.NewReader(data), o.workspaceTools)
	if rerr != nil || ev.Warning != "" || !ev.Kind.Recorded() {
		// Nothing to record, or a message to print: here.
		return false, nil
	}
	req := hookserve.Request{Agent: s.name, Event: data, FailClosed: o.failClosed, WorkspaceTools: o.workspaceTools}
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
	ans, err := hookserve.HandOff(ctx, find, e.getenv, req)
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

// hookServing is what the watch daemon this process serves needs to
// record agent hook events as `gitguard hook NAME` would in a process of
// its own started with the daemon's environment: how a hook opens the
// repository, the agents, and the hook's messages and exit status.
func (e *env) hookServing() hookserve.Options {
	// A hook's own process opens the repository without this process's
	// settings flags, and prints no progress.
	hook := &env{stdout: io.Discard, stderr: io.Discard, log: e.log, getenv: e.getenv}
	agents := make([]hookserve.Agent, len(agentSpecs))
	for i, s := range agentSpecs {
		agents[i] = hookserve.Agent{Name: s.name, Read: s.read}
	}
	return hookserve.Options{
		Open:     e.openAt,
		OpenHook: hook.openAt,
		Agents:   agents,
		Getenv:   e.getenv,
		Outcome:  e.hookAnswer,
		Log:      e.log,
	}
}

// hookAnswer is what a hook prints and exits with after recording an
// event (res, err), as runHookAgent would have printed and exited.
func (e *env) hookAnswer(agentName string, failClosed bool, res agent.Result, err error) hookserve.Answer {
	var stderr bytes.Buffer
	he := &env{stdout: io.Discard, stderr: &stderr, log: e.log, getenv: e.getenv}
	for _, w := range res.Warnings {
		fmt.Fprintf(&stderr, "gitguard: warning: %s\n", w)
	}
	i := slices.IndexFunc(agentSpecs, func(s *agentSpec) bool { return s.name == agentName })
	if i < 0 {
		return hookserve.DefaultOutcome(agentName, failClosed, res, err)
	}
	s, ans := agentSpecs[i], hookserve.Answer{}
	var code *exitCodeError
	if err := hookOutcome(he, s, hookAgentOptions{failClosed: failClosed}, err); errors.As(err, &code) {
		ans.Exit = code.code
	}
	ans.Stderr = stderr.String()
	return ans
}
