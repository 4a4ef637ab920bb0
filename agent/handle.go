package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/atomicfile"
	"github.com/gitguard/gitguard/record"
)

// Options tell Handle how to reach the repository.
type Options struct {
	// Open opens the repository containing dir.
	Open func(ctx context.Context, dir string) (*gitguard.Guard, error)
	// Dir is where the hook was started (-C); "" or "." means the event's
	// cwd, wherever the agent started the hook.
	Dir string
	// StartDaemon, if set, starts the work tree's watch daemon before the
	// first call it records, so that whole-workspace captures cost the
	// paths changed rather than a walk of the tree and later hooks can
	// hand their events to it. Its failure only costs speed.
	StartDaemon func(ctx context.Context, g *gitguard.Guard) error
	// Log receives Info records; nil discards.
	Log *slog.Logger
}

// Result is what Handle did.
type Result struct {
	Run  record.RunID
	Call record.CallID
	// Warnings are things the user should know (a tool use finished whose
	// start was never seen); the hook still succeeded.
	Warnings []string
}

// Handle records ev. It opens the repository only for events that record
// something. It returns ErrPayload (wrapped) for events missing what they
// need, and the root API's errors otherwise; the caller decides whether a
// failure blocks the agent.
func Handle(ctx context.Context, ev *Event, o Options) (Result, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	h := &handler{ev: ev, o: o, res: Result{Run: ev.RunID}}
	var err error
	switch ev.Kind {
	case Ignore:
		return h.res, nil
	case Pre, Post:
		err = h.call(ctx)
	case SessionStart:
		if ev.EndOthers == "" {
			return h.res, nil
		}
		err = h.withGuard(ctx, h.endOthers)
	case SessionEnd:
		err = h.withGuard(ctx, func(ctx context.Context, g *gitguard.Guard) error {
			return h.endRun(ctx, g, ev.RunID, ev.EndLabel)
		})
	default:
		err = fmt.Errorf("unknown event kind %d", ev.Kind)
	}
	return h.res, err
}

type handler struct {
	ev  *Event
	o   Options
	res Result
}

func (h *handler) warnf(format string, args ...any) {
	h.res.Warnings = append(h.res.Warnings, fmt.Sprintf(format, args...))
}

func (h *handler) open(ctx context.Context) (*gitguard.Guard, error) {
	dir := h.o.Dir
	if (dir == "" || dir == ".") && h.ev.Cwd != "" {
		dir = h.ev.Cwd
	}
	if dir == "" {
		dir = "."
	}
	return h.o.Open(ctx, dir)
}

func (h *handler) withGuard(ctx context.Context, fn func(context.Context, *gitguard.Guard) error) error {
	g, err := h.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	return fn(ctx, g)
}

func (h *handler) call(ctx context.Context) error {
	ev := h.ev
	if !ev.Whole && len(ev.Paths) == 0 {
		return PayloadErrorf(ev.Agent, "%s names no file", ev.Tool)
	}
	g, err := h.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	cwd := ev.Cwd
	if cwd == "" {
		cwd = h.o.Dir
	}
	co := gitguard.CallOptions{
		Tool:        ev.Tool,
		InputHash:   ev.InputHash,
		Input:       ev.Summary,
		Idempotency: ev.Idempotency,
		Checkpoint:  gitguard.CheckpointOptions{MessagesRef: ev.MessagesRef},
	}
	if co.Idempotency == "" {
		co.Idempotency = record.Conditional
	}
	if !ev.Whole {
		for _, p := range ev.Paths {
			rel, err := g.RepoPath(cwd, p)
			if errors.Is(err, gitguard.ErrOutsideWorkTree) || errors.Is(err, record.ErrBadPath) {
				h.o.Log.Info(ev.Agent+": path outside the guarded work tree, not recorded", "path", p)
				continue
			}
			if err != nil {
				return err
			}
			co.Paths = append(co.Paths, rel)
		}
		if len(co.Paths) == 0 {
			return nil
		}
		if co.Input == "" {
			co.Input = strings.ToLower(ev.Tool) + " " + strings.Join(co.Paths, " ")
		}
	}
	if co.Input == "" {
		co.Input = ev.Tool
	}
	if ev.Kind == Pre {
		return h.pre(ctx, g, co)
	}
	return h.post(ctx, g, co)
}

func (h *handler) pre(ctx context.Context, g *gitguard.Guard, co gitguard.CallOptions) error {
	ev := h.ev
	var err error
	if co.CallID, err = h.callID(ctx, g, true); err != nil {
		return err
	}
	h.res.Call = co.CallID
	if err := h.continueRun(ctx, g); err != nil {
		return err
	}
	if h.o.StartDaemon != nil && !g.DaemonRunning(ctx) {
		if err := h.o.StartDaemon(ctx, g); errors.Is(err, gitguard.ErrNoWatcher) {
			h.o.Log.Info(ev.Agent + ": no watch daemon on this platform; whole-workspace captures walk the tree")
		} else if err != nil {
			h.o.Log.Warn(ev.Agent+": no watch daemon; whole-workspace captures walk the tree", "err", err)
		} else {
			h.markDaemon(g, ev.RunID)
		}
	}
	_, err = g.CallStart(ctx, ev.RunID, co)
	if errors.Is(err, gitguard.ErrCallState) && h.started(ctx, g, co.CallID) {
		// The agent sent the same event twice; the first capture stands.
		h.o.Log.Info(ev.Agent+": call already started", "call", co.CallID)
		return nil
	}
	if err != nil {
		return err
	}
	h.o.Log.Info(ev.Agent+": call started", "run", ev.RunID, "call", co.CallID, "tool", co.Tool)
	return nil
}

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
		MessagesRef: ev.MessagesRef})
	return err
}

// started tells whether call is recorded as started in the session's run.
func (h *handler) started(ctx context.Context, g *gitguard.Guard, call record.CallID) bool {
	run, err := readRunIfAny(ctx, g, h.ev.RunID, call)
	return err == nil && run != nil && run.Calls[call] != nil && run.Calls[call].Ledger.Status == record.StatusStarted
}

func (h *handler) post(ctx context.Context, g *gitguard.Guard, co gitguard.CallOptions) error {
	ev := h.ev
	var err error
	if co.CallID, err = h.callID(ctx, g, false); err != nil {
		return err
	}
	h.res.Call = co.CallID
	fo := ev.Finish
	if fo.Status == "" {
		fo.Status = record.StatusSucceeded
	}
	// One read of the run decides and, for a started call, finishes.
	finished, c, err := g.CallFinishStarted(ctx, ev.RunID, co.CallID, fo)
	switch {
	case err != nil:
		return err
	case finished != nil:
		h.o.Log.Info(ev.Agent+": call finished", "run", ev.RunID, "call", co.CallID, "status", fo.Status)
		return nil
	case c == nil:
		// The before event never reached gitguard (hook added mid-session,
		// or it failed): the before state is unknown, so no patch can be
		// made. Record the call so the ledger is complete.
		note := "before state not captured (no " + h.preName() + " seen), file changes not recorded"
		if fo.Result != "" {
			note = fo.Result + "; " + note
		}
		fo.Result = note
		if _, err := g.CallRecord(ctx, ev.RunID, co, fo); err != nil {
			return err
		}
		h.warnf("%s %s finished but its start was never recorded; it is in the ledger without a patch, and its changes show as unrecorded in 'gitguard status'", ev.Tool, co.CallID)
		return nil
	}
	h.warnf("call %s is already %s; this %s event was not recorded", co.CallID, c.Ledger.Status, ev.Name)
	return nil
}

// preName names the before event in messages.
func (h *handler) preName() string {
	switch h.ev.Agent {
	case "Claude Code", "Codex":
		return "PreToolUse"
	case "Gemini CLI":
		return "BeforeTool"
	}
	return "before event"
}

// callID picks the call id of the event's tool use.
func (h *handler) callID(ctx context.Context, g *gitguard.Guard, pre bool) (record.CallID, error) {
	ev := h.ev
	switch {
	case ev.CallID != "":
		return ev.CallID, nil
	case ev.Pair:
		p := &Pairing{Dir: pairingDir(g), Run: string(ev.RunID), Prefix: ev.PairPrefix,
			Taken: func(id string) bool { return callExists(ctx, g, ev.RunID, record.CallID(id)) }}
		key := ev.Tool + "\x00" + ev.InputHash
		begin := p.End
		if pre {
			begin = p.Begin
		}
		id, err := begin(key)
		return record.CallID(id), err
	}
	run, err := readRunIfAny(ctx, g, ev.RunID, "")
	if err != nil {
		return "", err
	}
	return derivedCallID(ev.IDBase, run, pre), nil
}

func callExists(ctx context.Context, g *gitguard.Guard, runID record.RunID, callID record.CallID) bool {
	run, err := readRunIfAny(ctx, g, runID, callID)
	return err == nil && run != nil && run.Calls[callID] != nil
}

// derivedCallID is the call id of a tool use the agent sent no id for:
// base, or base-2, base-3... for the same input used again: before the
// tool runs, the first id not yet started; after, the newest one started.
func derivedCallID(base string, run *gitguard.Run, pre bool) record.CallID {
	if run == nil {
		return record.CallID(base)
	}
	id := func(n int) record.CallID {
		if n == 1 {
			return record.CallID(base)
		}
		return record.CallID(fmt.Sprintf("%s-%d", base, n))
	}
	n := 1
	for run.Calls[id(n)] != nil {
		n++
	}
	// n is the first free id.
	if pre {
		if n > 1 && run.Calls[id(n-1)].Ledger.Status == record.StatusStarted {
			return id(n - 1) // a repeated before event
		}
		return id(n)
	}
	for k := n - 1; k >= 1; k-- {
		if run.Calls[id(k)].Ledger.Status == record.StatusStarted {
			return id(k)
		}
	}
	return id(n)
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

// endOthers finishes the active run when it is another session's run of
// the same agent: that session never said it ended.
func (h *handler) endOthers(ctx context.Context, g *gitguard.Guard) error {
	active, err := g.ActiveRun()
	if err != nil || active == "" || active == h.ev.RunID || !strings.HasPrefix(string(active), h.ev.EndOthers) {
		return err
	}
	h.o.Log.Info(h.ev.Agent+": another session started; finishing the previous one", "run", active)
	return h.endRun(ctx, g, active, h.ev.Agent+" session ended (another session started)")
}

// endRun finishes run id: calls left without their after event (paired
// agents) are finished as uncertain, the watch daemon this adapter
// started for the run stops, and the run gets its last checkpoint. A
// session that recorded nothing has no run.
func (h *handler) endRun(ctx context.Context, g *gitguard.Guard, runID record.RunID, label string) error {
	// The daemon stops after the run's last snapshot, which it serves.
	defer h.stopDaemon(ctx, g, runID)
	run, err := readRunIfAny(ctx, g, runID, "")
	if err != nil || run == nil {
		return err
	}
	p := &Pairing{Dir: pairingDir(g), Run: string(runID)}
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
		if _, err := g.CallFinish(ctx, runID, id, gitguard.FinishOptions{Status: record.StatusUncertain,
			Result: "the session ended before the tool's after event arrived"}); err != nil {
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
func (h *handler) stopDaemon(ctx context.Context, g *gitguard.Guard, runID record.RunID) {
	if !h.daemonMarked(g, runID) {
		return
	}
	if _, err := g.StopDaemon(ctx); err != nil {
		h.o.Log.Warn(h.ev.Agent+": could not stop the watch daemon", "err", err)
	}
	_ = os.Remove(daemonMarker(g))
}

// The daemon marker names the run whose hook started the watch daemon, so
// that the end of that run stops it, and a daemon the user started is
// left alone.
func daemonMarker(g *gitguard.Guard) string {
	return filepath.Join(g.StateDir(), "agents", "daemon-run")
}

func (h *handler) markDaemon(g *gitguard.Guard, runID record.RunID) {
	path := daemonMarker(g)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
		err = atomicfile.WriteFile(path, []byte(string(runID)+"\n"), 0o600)
		if err != nil {
			h.o.Log.Warn(h.ev.Agent+": could not note the watch daemon's run", "err", err)
		}
	}
}

func (h *handler) daemonMarked(g *gitguard.Guard, runID record.RunID) bool {
	b, err := os.ReadFile(daemonMarker(g))
	return err == nil && strings.TrimSpace(string(b)) == string(runID)
}

func pairingDir(g *gitguard.Guard) string { return filepath.Join(g.StateDir(), "agents") }
