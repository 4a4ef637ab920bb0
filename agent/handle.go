package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/gitguard/gitguard"
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
	// DaemonStop is set by the work tree's watch daemon when it records
	// the event in its own process (package hookserve), having checked
	// that the event is for its work tree. It stops that daemon once the
	// event is answered, where a hook's process would ask it to stop over
	// its socket: the run whose hook started it ended. A session that
	// starts and ends another session's run that way keeps the daemon
	// instead, as a hook's process would stop it and start another.
	DaemonStop func()
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
	// Settled is the run's checkpoint commit when the event left none of
	// the run's calls started (a tool use's end that finished the last),
	// zero otherwise or when not known. While the run's ref still names
	// it, a later event of the session has no call to close: a daemon
	// may answer it without reading the run.
	Settled record.Hash
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
	case SessionEvent:
		err = h.withGuard(ctx, h.closeOpen)
	case SessionStart:
		// A session that starts outside any repository has nothing to
		// close and no daemon to start: nothing is said. (A daemon
		// recording the event found it in its work tree.)
		if h.o.DaemonStop == nil {
			if _, werr := gitguard.FindWorkTree(ctx, h.ev.Cwd); werr != nil && h.ev.Cwd != "" {
				return h.res, nil
			}
		}
		err = h.withGuard(ctx, func(ctx context.Context, g *gitguard.Guard) error {
			if err := h.closeOpen(ctx, g); err != nil {
				return err
			}
			if err := h.closeOthers(ctx, g); err != nil {
				return err
			}
			if err := h.endOthers(ctx, g); err != nil {
				return err
			}
			h.startDaemon(ctx, g)
			return nil
		})
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
		Checkpoint:  gitguard.CheckpointOptions{MessagesRef: ev.MessagesRef, Agent: ev.Agent},
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
	h.startDaemon(ctx, g)
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
		if cp := finished.Checkpoint; cp != nil && cp.OpenKnown && len(cp.Open) == 0 && finished.Damage == nil {
			h.res.Settled = finished.Commit
		}
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
	if ev.Repeated {
		h.o.Log.Info(ev.Agent+": call already finished through another hook", "call", co.CallID)
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
	case "Cursor", "Copilot CLI":
		return "preToolUse"
	case "Qwen Code":
		return "PreToolUse"
	}
	return "before event"
}
