package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/atomicfile"
	"github.com/gitguard/gitguard/record"
)

// This file is the session policy of agent hooks, in one place: a
// session is a run and a tool use a call; which call id a tool use gets
// when the agent sends none; when a session's run continues, and when it
// ends, another session's run with it; and the small files hooks keep
// under the work tree's private state folder (.git/gitguard/agents/): the
// pairing state of agents without call ids (Pairing) and the marker of the
// run whose hook started the watch daemon.

// continueRun makes the session's run the active run again when it was
// finished and no other run is active: a later turn (or a resumed
// session) continues its run. Only then is the run read; while it is the
// active run (every tool use but a turn's first) it is not.
func (h *handler) continueRun(ctx context.Context, g *gitguard.Guard) error {
	ev := h.ev
	if active, err := g.ActiveRun(); err != nil || active != "" {
		return nil
	}
	run, err := g.ReadRunCalls(ctx, ev.RunID)
	if errors.Is(err, gitguard.ErrUnknownRun) || (err == nil && !run.Checkpoint.RunFinished) {
		return nil // CallStart starts a run not yet recorded
	}
	if err != nil {
		return err
	}
	_, err = g.StartRun(ctx, ev.RunID, gitguard.CheckpointOptions{Label: ev.Agent + " session continues",
		MessagesRef: ev.MessagesRef, Agent: ev.Agent})
	return err
}

// started tells whether call is recorded as started in the session's run.
func (h *handler) started(ctx context.Context, g *gitguard.Guard, call record.CallID) bool {
	run, err := readRunIfAny(ctx, g, h.ev.RunID, call)
	return err == nil && run != nil && run.Calls[call] != nil && run.Calls[call].Ledger.Status == record.StatusStarted
}

// callID picks the call id of the event's tool use.
func (h *handler) callID(ctx context.Context, g *gitguard.Guard, pre bool) (record.CallID, error) {
	ev := h.ev
	switch {
	case ev.CallID != "":
		return ev.CallID, nil
	case ev.Pair:
		p := &Pairing{Dir: pairingDir(g.StateDir()), Run: string(ev.RunID), Prefix: ev.PairPrefix,
			Taken: func(id string) bool { return callExists(ctx, g, ev.RunID, record.CallIDOf(id)) }}
		key := ev.Tool + "\x00" + ev.InputHash
		begin := p.End
		if pre {
			begin = p.Begin
		}
		id, err := begin(key)
		return record.CallIDOf(id), err
	}
	run, err := readRunIfAny(ctx, g, ev.RunID, "")
	if err != nil {
		return "", err
	}
	return derivedCallID(ev.IDBase, runStatus(run), pre), nil
}

func callExists(ctx context.Context, g *gitguard.Guard, runID record.RunID, callID record.CallID) bool {
	run, err := readRunIfAny(ctx, g, runID, callID)
	return err == nil && run != nil && run.Calls[callID] != nil
}

// derivedCallID is the call id of a tool use the agent sent no id for:
// base, or base-2, base-3... for the same input used again: before the
// tool runs, the first id not yet started; after, the newest one started.
// status returns the status of a call of the session's run, false for a
// call it does not have.
func derivedCallID(base string, status func(record.CallID) (record.Status, bool), pre bool) record.CallID {
	id := func(n int) record.CallID {
		if n == 1 {
			return record.CallIDOf(base)
		}
		return record.CallIDOf(fmt.Sprintf("%s-%d", base, n))
	}
	started := func(n int) bool {
		st, _ := status(id(n))
		return st == record.StatusStarted
	}
	n := 1
	for _, ok := status(id(n)); ok; _, ok = status(id(n)) {
		n++
	}
	// n is the first free id.
	if pre {
		if n > 1 && started(n-1) {
			return id(n - 1) // a repeated before event
		}
		return id(n)
	}
	for k := n - 1; k >= 1; k-- {
		if started(k) {
			return id(k)
		}
	}
	return id(n)
}

// runStatus is the status func of derivedCallID for run, nil when the
// session has no run yet.
func runStatus(run *gitguard.Run) func(record.CallID) (record.Status, bool) {
	return func(id record.CallID) (record.Status, bool) {
		if run == nil || run.Calls[id] == nil {
			return "", false
		}
		return run.Calls[id].Ledger.Status, true
	}
}

// readRunIfAny reads the session's run, or nil when it has none yet, with
// the records of call (every call's when call is "").
func readRunIfAny(ctx context.Context, g *gitguard.Guard, runID record.RunID, call record.CallID) (*gitguard.Run, error) {
	var run *gitguard.Run
	var err error
	if call == "" {
		run, err = g.ReadRun(ctx, runID)
	} else {
		run, err = g.ReadRunCalls(ctx, runID, call)
	}
	if errors.Is(err, gitguard.ErrUnknownRun) {
		return nil, nil
	}
	return run, err
}

// startDaemon starts the work tree's watch daemon for the session's run
// when Options ask for one and none runs; the run's end stops it. Its
// failure only costs speed.
func (h *handler) startDaemon(ctx context.Context, g *gitguard.Guard) {
	if h.o.StartDaemon == nil || g.DaemonRunning(ctx) {
		return
	}
	if err := h.o.StartDaemon(ctx, g); errors.Is(err, gitguard.ErrNoWatcher) {
		h.o.Log.Info(h.ev.Agent + ": no watch daemon on this platform; whole-workspace captures walk the tree")
	} else if err != nil {
		h.o.Log.Warn(h.ev.Agent+": no watch daemon; whole-workspace captures walk the tree", "err", err)
	} else {
		h.markDaemon(g, h.ev.RunID)
	}
}

// endOthers finishes the active run when it is another session's run of
// the same agent: that session never said it ended.
func (h *handler) endOthers(ctx context.Context, g *gitguard.Guard) error {
	active, err := g.ActiveRun()
	if err != nil || !endsOther(active, h.ev.RunID, h.ev.EndOthers) {
		return err
	}
	h.o.Log.Info(h.ev.Agent+": another session started; finishing the previous one", "run", active)
	return h.endRun(ctx, g, active, h.ev.Agent+" session ended (another session started)")
}

// closeOpen closes the session's calls left started: this later event of
// the session shows their tool uses are over (the user interrupted the
// turn, which tells no hook; the agent was killed and the session
// resumed). Each is marked uncertain with what changed from its start to
// now attributed to it, unless an earlier checkpoint of the run ended its
// window first. A session without calls left open costs one read of its
// run's newest record, and captures nothing.
func (h *handler) closeOpen(ctx context.Context, g *gitguard.Guard) error {
	ev := gitguard.Evidence{Kind: record.EvidenceSessionEvent, What: fmt.Sprintf("%s %s of the same session", h.ev.Agent, h.ev.Name)}
	closed, err := g.CloseOpenCalls(ctx, h.ev.RunID, ev)
	for _, id := range closed {
		h.warnf("call %s never got its after event before %s; closed as uncertain", id, h.ev.Name)
	}
	return err
}

// closeOthers closes the calls left started in the runs of the agent's
// other sessions in this work tree (ids starting with ev.CloseOthers): a
// new session started. Their runs are not finished: a session running
// beside this one goes on, and a call of it that was only slow replaces
// the attribution with its own report when it ends.
func (h *handler) closeOthers(ctx context.Context, g *gitguard.Guard) error {
	if h.ev.CloseOthers == "" {
		return nil
	}
	runs, err := g.RunsOf(ctx, h.ev.CloseOthers)
	if err != nil {
		return err
	}
	ev := gitguard.Evidence{Kind: record.EvidenceNewSession, What: fmt.Sprintf("another %s session (run %s) started in the work tree", h.ev.Agent, h.ev.RunID)}
	for _, run := range runs {
		if run == h.ev.RunID {
			continue
		}
		closed, err := g.CloseOpenCalls(ctx, run, ev)
		if err != nil {
			return err
		}
		for _, id := range closed {
			h.warnf("call %s of run %s never got its after event before this session started; closed as uncertain", id, run)
		}
	}
	return nil
}

// endsOther tells whether a session of run own, starting, ends the
// active run: another session's run of the same agent, whose runs begin
// with prefix.
func endsOther(active, own record.RunID, prefix string) bool {
	return active != "" && active != own && prefix != "" && strings.HasPrefix(string(active), prefix)
}

// endRun finishes run id: calls left without their after event (paired
// agents) are finished as uncertain, the watch daemon this adapter
// started for the run stops, and the run gets its last checkpoint. A
// session that recorded nothing has no run.
func (h *handler) endRun(ctx context.Context, g *gitguard.Guard, runID record.RunID, label string) error {
	// The daemon stops after the run's last snapshot, which it serves;
	// after a turn it goes on, so that the next turn's first tool use
	// finds it running rather than starting it again.
	if !h.ev.TurnEnd {
		defer h.stopDaemon(ctx, g, runID)
	}
	run, err := readRunIfAny(ctx, g, runID, "")
	if err != nil || run == nil {
		return err
	}
	p := &Pairing{Dir: pairingDir(g.StateDir()), Run: string(runID)}
	if _, err := p.Drain(); err != nil { // the session's pairs end with it
		return err
	}
	// Calls still started when the session ends never got their after
	// event (a paired call whose after event never came; a Codex
	// apply_patch that did not apply, which gets no PostToolUse): they are
	// finished as uncertain, with what they changed, never left started.
	// An interrupted undo or redo is left for 'gitguard undo' to finish.
	var leftOpen []record.CallID
	for id, c := range run.Calls {
		if c.Ledger.Status == record.StatusStarted && c.Ledger.ToolName != gitguard.ToolUndo && c.Ledger.ToolName != gitguard.ToolRedo {
			leftOpen = append(leftOpen, id)
		}
	}
	slices.Sort(leftOpen)
	for _, id := range leftOpen {
		ev := &gitguard.Evidence{Kind: record.EvidenceSessionEvent, What: fmt.Sprintf("%s %s: the session ended", h.ev.Agent, h.ev.Name)}
		if h.ev.Kind == SessionStart {
			ev.Kind = record.EvidenceNewSession
			ev.What = fmt.Sprintf("another %s session (run %s) started in the work tree", h.ev.Agent, h.ev.RunID)
		}
		if _, err := g.CallFinish(ctx, runID, id, gitguard.FinishOptions{Status: record.StatusUncertain,
			Result: "the session ended before the tool's after event arrived", Evidence: ev}); err != nil {
			return err
		}
		h.warnf("call %s never got its after event; finished as uncertain", id)
	}
	if run.Checkpoint.RunFinished && len(leftOpen) == 0 {
		return nil
	}
	if label == "" {
		label = h.ev.Agent + " session ended"
	}
	_, err = g.FinishRun(ctx, runID, gitguard.CheckpointOptions{Label: label, MessagesRef: h.ev.MessagesRef})
	return err
}

// stopDaemon stops the watch daemon when this adapter started it for run.
// In the daemon's own process (Options.DaemonStop) it stops once the
// event is answered; a session starting, which ended run, keeps it for its
// own run instead: its hook's process would stop this daemon and start
// another for it.
func (h *handler) stopDaemon(ctx context.Context, g *gitguard.Guard, runID record.RunID) {
	if !daemonMarked(g.StateDir(), runID) {
		return
	}
	if h.o.DaemonStop != nil {
		if h.ev.Kind == SessionStart && h.ev.RunID != runID {
			h.o.Log.Info(h.ev.Agent+": the watch daemon goes on for the session starting", "run", h.ev.RunID)
			h.markDaemon(g, h.ev.RunID)
			return
		}
		h.o.DaemonStop()
		_ = os.Remove(daemonMarker(g.StateDir()))
		return
	}
	if _, err := g.StopDaemon(ctx); err != nil {
		h.o.Log.Warn(h.ev.Agent+": could not stop the watch daemon", "err", err)
	}
	_ = os.Remove(daemonMarker(g.StateDir()))
}

func (h *handler) markDaemon(g *gitguard.Guard, runID record.RunID) {
	if err := markDaemon(g.StateDir(), runID); err != nil {
		h.o.Log.Warn(h.ev.Agent+": could not note the watch daemon's run", "err", err)
	}
}

// agentsDir is the folder of the hooks' state under the work tree's
// private state folder stateDir (gitguard.Guard.StateDir).
func agentsDir(stateDir string) string { return filepath.Join(stateDir, "agents") }

// pairingDir holds the Pairing state of each run.
func pairingDir(stateDir string) string { return agentsDir(stateDir) }

// The daemon marker names the run whose hook started the watch daemon, so
// that the end of that run stops it, and a daemon the user started is
// left alone.
func daemonMarker(stateDir string) string { return filepath.Join(agentsDir(stateDir), "daemon-run") }

// markDaemon notes that a hook of run started the watch daemon, in place
// of any run noted before.
func markDaemon(stateDir string, run record.RunID) error {
	path := daemonMarker(stateDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("note the watch daemon's run: %w", err)
	}
	if err := atomicfile.WriteFile(path, []byte(string(run)+"\n"), 0o600); err != nil {
		return fmt.Errorf("note the watch daemon's run: %w", err)
	}
	return nil
}

// daemonMarked tells whether a hook of run started the watch daemon.
func daemonMarked(stateDir string, run record.RunID) bool {
	b, err := atomicfile.ReadFile(daemonMarker(stateDir), 4<<10)
	return err == nil && strings.TrimSpace(string(b)) == string(run)
}
