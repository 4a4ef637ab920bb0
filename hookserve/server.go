package hookserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/internal/hookwire"
	"github.com/gitguard/gitguard/record"
)

// Agent is an agent adapter as the daemon knows it: the name a hook hands
// its events over with and how to read them.
type Agent struct {
	// Name is the adapter's name, as in `gitguard hook NAME`: "claude-code".
	Name string
	// Read reads one hook event; workspaceTools are more tools to record
	// as whole-workspace calls.
	Read func(r io.Reader, workspaceTools []string) (*agent.Event, error)
}

// Outcome turns what recording an event came to into what the hook prints
// on stderr and the status it exits with, as the hook's own process would
// have: failClosed says the hook was asked to block the tool use on a
// failure. agentName is Agent.Name.
type Outcome func(agentName string, failClosed bool, res agent.Result, err error) Answer

// Options configure NewDaemon. Open is required.
type Options struct {
	// Open opens the repository containing dir as the daemon's process
	// does (gitguard.Open with its options): the daemon reopens its work
	// tree with it when the configuration changed.
	Open func(ctx context.Context, dir string) (*gitguard.Guard, error)
	// OpenHook opens the repository containing dir as a hook's own
	// process would, to record its events; nil means Open.
	OpenHook func(ctx context.Context, dir string) (*gitguard.Guard, error)
	// Agents are the adapters whose events the daemon records; an event
	// of another agent is refused.
	Agents []Agent
	// Getenv is the daemon's environment as git sees it, to tell without
	// git which work tree an event is for (gitguard.WorkTreeOf); nil
	// refuses every event.
	Getenv func(string) string
	// Outcome turns a recorded event into the hook's stderr and exit
	// status; nil means DefaultOutcome.
	Outcome Outcome
	// MergeIdle is how long after the last event gitguard's packs are
	// merged; 0 means DefaultMergeIdle.
	MergeIdle time.Duration
	// Log receives Info records; nil discards.
	Log *slog.Logger
}

// Validate returns an error when o lacks what NewDaemon needs.
func (o *Options) Validate() error {
	if o.Open == nil {
		return errors.New("hookserve: Options.Open is required")
	}
	if o.MergeIdle < 0 {
		return fmt.Errorf("hookserve: negative MergeIdle %s", o.MergeIdle)
	}
	return nil
}

// Daemon is a work tree's watch daemon that also records the agent hook
// events hooks hand it (HandOff). Serve it, and Close it when done.
type Daemon struct {
	*gitguard.Daemon
	merges, spares *idleTask
}

// Close stops serving and waits for a pack merge under way.
func (d *Daemon) Close() error {
	err := d.Daemon.Close()
	d.merges.stop()
	d.spares.stop()
	return err
}

// NewDaemon makes g's watch daemon, makes it record agent hook events,
// binds its socket and arms its watcher in the background, so that the
// first client is served from it rather than after a walk, then makes the
// spare files the first events' packs take (Guard.MakeSpareFiles). The caller runs
// Serve and closes it. It returns gitguard.ErrDaemonRunning when another
// process serves the work tree, and gitguard.ErrNoWatcher (wrapped) where
// the platform or the file system offers no watcher. ctx bounds the
// daemon's background work, not the Guard: g stays the caller's.
func NewDaemon(ctx context.Context, g *gitguard.Guard, o Options) (*Daemon, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Outcome == nil {
		o.Outcome = DefaultOutcome
	}
	if o.MergeIdle == 0 {
		o.MergeIdle = DefaultMergeIdle
	}
	if o.OpenHook == nil {
		o.OpenHook = o.Open
	}
	workTree := g.WorkTree()
	reopen := func() (*gitguard.Guard, error) {
		return o.Open(context.WithoutCancel(ctx), workTree)
	}
	d := &Daemon{Daemon: g.NewDaemon(reopen)}
	s := &server{o: o, g: g, workTree: workTree, stop: d.Stop, later: d.Later}
	d.merges = newIdleTask(o.MergeIdle, func() { s.mergePacks(ctx) })
	d.spares = newIdleTask(DefaultSpareIdle, g.MakeSpareFiles)
	s.merges, s.spares = d.merges, d.spares
	d.Handle(hookwire.Op, s.answer)
	if err := d.Listen(); err != nil {
		d.Close()
		return nil, err
	}
	go func() {
		if err := d.Snapshot(ctx); err != nil && ctx.Err() == nil {
			o.Log.Info("watch daemon: first snapshot", "err", err)
		}
		d.spares.poke() // the first tool use's packs too
	}()
	return d, nil
}

// server records the hook events of one work tree's daemon.
type server struct {
	o        Options
	g        *gitguard.Guard // the daemon's own, to read run refs
	workTree string
	merges   *idleTask
	spares   *idleTask
	// stop stops the daemon once the request in hand is answered (Serve
	// waits for the requests under way).
	stop func()
	// later runs work beside the request's answer (gitguard.Daemon.Later).
	later func(func())

	mu sync.Mutex
	// settled remembers, per run, the checkpoint an event of the daemon
	// left with no call started (agent.Result.Settled).
	settled map[record.RunID]record.Hash
	// late holds, per run, what recording a tool use's end after its
	// answer would have printed (keepLate).
	late map[record.RunID]string
	// begun holds the calls whose start this daemon recorded and whose
	// end it has not had (keepBegun).
	begun map[callKey]int
}

// quiet reports whether run is as an event of this daemon left it, with
// no call started: its ref still names that checkpoint. A session's later
// event (a prompt, the agent stopping) then has no call to close, and is
// answered without opening the repository or reading the run: what
// agent.Handle would find and do is nothing. Any other writer of the run
// moves its ref.
func (s *server) quiet(ctx context.Context, run record.RunID) bool {
	s.mu.Lock()
	tip, ok := s.settled[run]
	s.mu.Unlock()
	if !ok {
		return false
	}
	now, err := s.g.RunTip(ctx, run)
	return err == nil && now == tip
}

// note remembers the checkpoint an event left run at when it left no call
// started. Other events need not make it forget: one that records moves
// the ref, and quiet compares the ref.
func (s *server) note(run record.RunID, res agent.Result, err error) {
	if err != nil || res.Settled.IsZero() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.settled == nil || len(s.settled) >= maxSettled {
		s.settled = map[record.RunID]record.Hash{}
	}
	s.settled[run] = res.Settled
}

// maxSettled bounds the runs a daemon remembers settled; past it, the
// memory starts over (each run is then read once more).
const maxSettled = 256

// mergePacks merges the packs the events wrote: once they pause, and
// after each tool use's end recorded after its answer. The daemon's own
// Guard does: the object database is the repository's, whatever the
// settings the events were recorded with.
func (s *server) mergePacks(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	if err := s.g.MergePacks(); err != nil {
		s.o.Log.Info("watch daemon: merge packs", "err", err)
	}
}

// answer records the hook event of one request, as `gitguard hook NAME`
// would in a process of its own started with the daemon's environment,
// or refuses it.
func (s *server) answer(ctx context.Context, payload json.RawMessage) (json.RawMessage, error) {
	defer s.merges.poke()
	defer s.spares.poke()
	var req hookwire.Request
	if err := json.Unmarshal(payload, &req); err != nil {
		return nil, fmt.Errorf("hook request: %w", err)
	}
	if req.Env != hookwire.EnvKey() {
		return nil, errors.New("the hook's environment differs from the daemon's")
	}
	i := slices.IndexFunc(s.o.Agents, func(a Agent) bool { return a.Name == req.Agent })
	if i < 0 {
		return nil, fmt.Errorf("no agent %q", req.Agent)
	}
	a := s.o.Agents[i]
	ev, err := s.takes(a, req)
	if err != nil {
		return nil, err
	}
	late := s.takeLate(ev.RunID)
	if ev.Kind == agent.SessionEvent && s.quiet(ctx, ev.RunID) {
		ans := s.o.Outcome(a.Name, req.FailClosed, agent.Result{Run: ev.RunID}, nil)
		return json.Marshal(hookwire.Answer{Stderr: late + ans.Stderr, Exit: ans.Exit})
	}
	if ev.Kind == agent.Post && !req.FailClosed && s.takeBegun(ev) {
		// The end of a tool use whose start this daemon recorded decides
		// nothing for the agent, which goes on once the hook answers: it
		// is recorded after the answer, and every later request waits
		// for that (Daemon.Later). What it would have printed, were it to
		// fail, comes with the run's next event. Any other end (one
		// whose start is unknown here, or failing closed: the exit
		// status says whether it was recorded) is recorded first.
		bg := context.WithoutCancel(ctx)
		s.later(func() {
			defer s.merges.poke()
			defer s.spares.poke()
			if ans := s.record(bg, a, req, ev); ans.Stderr != "" {
				s.keepLate(ev.RunID, ans.Stderr)
			}
			// Nobody waits on this work: the packs that piled up are
			// merged here, before they reach the bound at which a tool
			// use's start, which the agent waits on, would merge them.
			s.mergePacks(bg)
		})
		return json.Marshal(hookwire.Answer{Stderr: late})
	}
	ans := s.record(ctx, a, req, ev)
	return json.Marshal(hookwire.Answer{Stderr: late + ans.Stderr, Exit: ans.Exit})
}

// record records ev as the hook's own process would and returns what that
// process would print and exit with. The daemon runs already: the hook
// starts none, and the end of the run whose hook started it stops it here.
func (s *server) record(ctx context.Context, a Agent, req hookwire.Request, ev *agent.Event) Answer {
	res, err := agent.Handle(ctx, ev, agent.Options{Open: s.o.OpenHook, Dir: req.Dir, Log: s.o.Log, DaemonStop: s.stop})
	s.note(ev.RunID, res, err)
	if ev.Kind == agent.Pre && err == nil && res.Call != "" {
		s.keepBegun(ev)
	}
	return s.o.Outcome(a.Name, req.FailClosed, res, err)
}

// callKey names a tool use of a run as both its events do: by the call
// id the agent sent, or, for an agent that sends none but pairs its events
// by tool and input (agent.Event.Pair), by those.
type callKey struct {
	run record.RunID
	id  string
}

// callKeyOf is ev's callKey; false when its call id is derived from the
// run's records (agent.Event.IDBase).
func callKeyOf(ev *agent.Event) (callKey, bool) {
	switch {
	case ev.CallID != "":
		return callKey{ev.RunID, "id\x00" + string(ev.CallID)}, true
	case ev.Pair:
		return callKey{ev.RunID, "pair\x00" + ev.PairPrefix + "\x00" + ev.Tool + "\x00" + ev.InputHash}, true
	}
	return callKey{}, false
}

// keepBegun remembers that this daemon recorded the start of ev's call.
func (s *server) keepBegun(ev *agent.Event) {
	k, ok := callKeyOf(ev)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.begun == nil || len(s.begun) >= maxBegun {
		s.begun = map[callKey]int{}
	}
	s.begun[k]++
}

// takeBegun reports whether this daemon recorded the start of the call ev
// ends and had no end of it yet, and forgets one such start.
func (s *server) takeBegun(ev *agent.Event) bool {
	k, ok := callKeyOf(ev)
	if !ok {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch n := s.begun[k]; n {
	case 0:
		return false
	case 1:
		delete(s.begun, k)
	default:
		s.begun[k] = n - 1
	}
	return true
}

// maxBegun bounds the calls a daemon remembers begun (a session that ends
// with calls open leaves them here); past it, the memory starts over, and
// the ends of the calls it forgot are recorded before their answers.
const maxBegun = 4096

// keepLate keeps what recording a tool use's end after its answer would
// have printed, for the run's next event to print.
func (s *server) keepLate(run record.RunID, stderr string) {
	s.o.Log.Info("watch daemon: a tool use's end, recorded after its answer", "run", run, "said", stderr)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.late == nil || len(s.late) >= maxSettled {
		s.late = map[record.RunID]string{}
	}
	if s.late[run] == "" {
		s.late[run] = "gitguard: recording an earlier tool use's end, after its hook had answered:\n"
	}
	s.late[run] += stderr
}

// takeLate returns, and forgets, what keepLate kept for run.
func (s *server) takeLate(run record.RunID) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	said := s.late[run]
	delete(s.late, run)
	return said
}

// takes reads the event of req and returns it when the daemon records it,
// else why it leaves it to the hook. It records every event that records
// something (agent.Kind.Recorded) in its own work tree: a tool use's
// start or end, a session's start, end or later event. An event with a
// warning, or one it cannot read, has its message in the hook's process.
// A small hook client (cmd/gitguard-hook) hands every event over and
// leaves this check to the daemon.
func (s *server) takes(a Agent, req hookwire.Request) (*agent.Event, error) {
	ev, err := a.Read(bytes.NewReader(req.Event), req.WorkspaceTools)
	if err != nil || ev.Warning != "" || !ev.Kind.Recorded() {
		return nil, errors.New("not an event the daemon records")
	}
	dir := req.Dir
	if dir == "" {
		dir = ev.Cwd
	}
	if !filepath.IsAbs(dir) {
		return nil, errors.New("the event names no absolute folder")
	}
	if top, ok := gitguard.WorkTreeOf(dir, s.o.Getenv); !ok || top != s.workTree {
		return nil, errors.New("the event is for another work tree")
	}
	return ev, nil
}

// DefaultOutcome is the Outcome of a daemon given none: each warning on a
// line of its own, and a failure as a warning (exit 0), or, failing
// closed, as the reason the tool use is blocked (exit 2).
func DefaultOutcome(_ string, failClosed bool, res agent.Result, err error) Answer {
	var b bytes.Buffer
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "gitguard: warning: %s\n", w)
	}
	if err == nil {
		return Answer{Stderr: b.String()}
	}
	if failClosed {
		fmt.Fprintf(&b, "gitguard: %v; the tool use is blocked because gitguard fails closed\n", err)
		return Answer{Stderr: b.String(), Exit: 2}
	}
	fmt.Fprintf(&b, "gitguard: warning: %v; this tool use is not protected by gitguard\n", err)
	return Answer{Stderr: b.String()}
}
