package gitguard

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/daemonwire"
	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/internal/runsync"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// The types the API returns that a caller may keep are defined here or in
// record, so that a caller needs no other package of gitguard's.

// Run is the state of a run as of one checkpoint: its record and the
// records of the calls read with it. The calls are the store's, not
// copies: a Run is for reading.
type Run struct {
	ID         record.RunID
	Commit     record.Hash // the checkpoint commit; zero for a run not yet created
	Checkpoint *record.Checkpoint
	// Calls holds every call of the run, or, for a run read with the
	// records of some calls only (ReadRunCalls), the named calls that exist.
	Calls map[record.CallID]*record.Call
	// Damage is set when the run's newer checkpoints name missing objects
	// and this is its newest intact one.
	Damage *record.Damage
}

// Exists reports whether the run has at least one checkpoint.
func (r *Run) Exists() bool { return !r.Commit.IsZero() }

// SortedCalls returns the calls ordered by when they were first recorded.
func (r *Run) SortedCalls() []*record.Call {
	out := make([]*record.Call, 0, len(r.Calls))
	for _, c := range r.Calls {
		out = append(out, c)
	}
	record.SortCalls(out)
	return out
}

// newRun is the API's view of a run the store read.
func newRun(r *patchstore.Run) *Run {
	if r == nil {
		return nil
	}
	out := &Run{ID: r.ID, Commit: r.Commit, Checkpoint: r.Checkpoint, Damage: r.Damage, Calls: make(map[record.CallID]*record.Call, len(r.Calls))}
	for id, c := range r.Calls {
		out.Calls[id] = &c.Call
	}
	return out
}

// recordOf is the record of a call the store read; nil for none.
func recordOf(c *patchstore.Call) *record.Call {
	if c == nil {
		return nil
	}
	return &c.Call
}

// runOf is newRun for a store's or a use case's results.
func runOf(r *patchstore.Run, err error) (*Run, error) { return newRun(r), err }

// The classes of a path the agent touched (see record.Class).
const (
	Applied     = record.Applied
	Reapplyable = record.Reapplyable
	Conflicted  = record.Conflicted
	Merged      = record.Merged
	// Unrecoverable: the agent's change is in place and undo cannot
	// revert it (content over the size limit, recorded by hash only).
	Unrecoverable = record.Irrecoverable
	// Guessed ("uncertain"): the change is in place but was only guessed to
	// be a killed call's; undo leaves it unless forced.
	Guessed = record.Guessed
)

// The errors callers tell apart (the CLI maps them to exit codes), from
// the packages that return them.
var (
	ErrNotRepository     = git.ErrNotRepository
	ErrBare              = git.ErrBare
	ErrNoWorkTree        = git.ErrNoWorkTree
	ErrGitNotFound       = git.ErrNotFound
	ErrCorrupt           = record.ErrCorrupt
	ErrBadPath           = record.ErrBadPath
	ErrBadRunID          = record.ErrBadRunID
	ErrBadCallID         = record.ErrBadCallID
	ErrUnknownRun        = patchstore.ErrUnknownRun
	ErrUnknownCall       = patchstore.ErrUnknownCall
	ErrUnknownCheckpoint = patchstore.ErrUnknownCheckpoint
	ErrBusy              = patchstore.ErrBusy
	ErrRefChanged        = gitrefs.ErrRefChanged
	ErrRemote            = gitrefs.ErrRemote
	ErrBadRemote         = gitrefs.ErrBadRemote
	ErrMissingObject     = odb.ErrMissing
	ErrFileChanged       = odb.ErrChanged
	ErrBadGlob           = workspace.ErrBadGlob
	ErrIndexFormat       = workspace.ErrIndexFormat
	ErrSymlinkParent     = workspace.ErrSymlinkParent
	ErrDaemonRunning     = workspace.ErrDaemonRunning
	ErrNoDaemon          = workspace.ErrNoDaemon
	ErrNoWatcher         = workspace.ErrNoWatcher
)

// ListRuns returns every run in the repository, newest activity first.
func (g *Guard) ListRuns(ctx context.Context) ([]record.RunInfo, error) { return g.store.ListRuns(ctx) }

// RunTip returns the checkpoint commit run id's ref names now, zero when
// the run has none. It reads the ref only: what a caller that remembers
// a run's state checks it against.
func (g *Guard) RunTip(ctx context.Context, id record.RunID) (record.Hash, error) {
	return g.refs.Read(ctx, gitrefs.RunRef(id))
}

// History returns the checkpoints of a run, newest first; at most limit
// when limit > 0.
//
// The run is validated as every command reading a run validates it (its
// newest checkpoint's records, see validateRun), and each checkpoint
// listed as the chain is followed.
func (g *Guard) History(ctx context.Context, id record.RunID, limit int) ([]record.Entry, error) {
	if err := g.validateRun(ctx, id); err != nil {
		return nil, err
	}
	return g.store.History(ctx, id, limit)
}

// ReadRun reads a run's newest checkpoint with the records of the named
// calls only, or of every call when none is named.
func (g *Guard) ReadRun(ctx context.Context, id record.RunID, calls ...record.CallID) (*Run, error) {
	if len(calls) == 0 {
		return runOf(g.store.ReadRun(ctx, id))
	}
	return runOf(g.store.ReadRunCalls(ctx, id, calls...))
}

// CountRunRefs counts the run refs in the repository.
func (g *Guard) CountRunRefs(ctx context.Context) (int, error) {
	return g.maintainer().CountRunRefs(ctx)
}

// CheckpointChanges diffs a checkpoint's work tree against the previous
// checkpoint's, or against HEAD's tree for a run's first checkpoint.
func (g *Guard) CheckpointChanges(cp *record.Checkpoint) ([]record.Change, error) {
	return runread.Changes(g.store, g.db, cp)
}

// Daemon is a watch daemon serving snapshots of one work tree to the
// gitguard processes of that work tree, and the ops registered with
// Handle. Listen, then Serve; Close when done. Its methods are safe for
// concurrent use.
type Daemon struct{ d *workspace.Daemon }

// OpHandler answers one request of an op registered with Daemon.Handle.
type OpHandler func(ctx context.Context, payload json.RawMessage) (json.RawMessage, error)

// Handle makes the daemon answer op with h, one request at a time.
// Register before Serve.
func (d *Daemon) Handle(op string, h OpHandler) { d.d.Handle(op, daemonwire.OpHandler(h)) }

// Listen binds the daemon's socket. It returns ErrDaemonRunning when
// another process serves the work tree.
func (d *Daemon) Listen() error { return d.d.Listen() }

// Serve answers requests until ctx ends, Stop is called, or no request
// came for idle (0: no limit).
func (d *Daemon) Serve(ctx context.Context, idle time.Duration) error { return d.d.Serve(ctx, idle) }

// Snapshot takes the daemon's snapshot of the work tree now, arming its
// watcher when this is the first, so that the first client is served
// from the watcher rather than after a walk.
func (d *Daemon) Snapshot(ctx context.Context) error {
	_, err := d.d.Snapshot(ctx)
	return err
}

// Later runs fn beside the answer of the request in hand: fn starts at
// once, and every later request (but a status), a Guard opened with
// WorkspaceOptions.UseDaemon, and Close wait until it has returned. fn
// must neither ask this daemon anything over its socket nor call Settle.
func (d *Daemon) Later(fn func()) { d.d.Later(fn) }

// Settle waits until the work Later started is done: what a caller in the
// daemon's own process, whose Guards do not ask the daemon, calls before
// reading what that work writes.
func (d *Daemon) Settle() { d.d.Settle() }

// Stop makes Serve return.
func (d *Daemon) Stop() { d.d.Stop() }

// Close stops serving and releases the socket and the watcher.
func (d *Daemon) Close() error { return d.d.Close() }

// Status is what the daemon would report of itself to WatchStatus.
func (d *Daemon) Status() DaemonStatus { return DaemonStatus(d.d.Status()) }

// NewDaemon makes a watch daemon for the work tree and routes this Guard's
// snapshots through it. reopen, if set, opens the Guard again with the
// configuration as it is then (see workspace.Workspace.NewDaemon).
func (g *Guard) NewDaemon(reopen func() (*Guard, error)) *Daemon {
	var again func() (*workspace.Workspace, error)
	if reopen != nil {
		again = func() (*workspace.Workspace, error) {
			g2, err := reopen()
			if err != nil {
				return nil, err
			}
			return g2.ws, nil
		}
	}
	return &Daemon{d: g.ws.NewDaemon(again)}
}

// WatchStatus asks the work tree's watch daemon for its status, and to
// stop when stop is set. It returns ErrNoDaemon when none serves it.
func (g *Guard) WatchStatus(ctx context.Context, stop bool) (DaemonStatus, error) {
	if err := g.needWorkTree(); err != nil {
		return DaemonStatus{}, err
	}
	st, err := g.ws.DaemonStatus(ctx, stop)
	return DaemonStatus(st), err
}

// DaemonStatus is what a watch daemon reports of itself.
type DaemonStatus struct {
	PID      int       `json:"pid"`
	WorkTree string    `json:"worktree"`
	Since    time.Time `json:"since"`
	Requests int64     `json:"requests"`
	Watched  int64     `json:"watched"` // answered from the watcher
	Walks    int64     `json:"walks"`   // answered by walking the tree
	Ops      int64     `json:"ops"`     // other requests answered (agent hook events)
	LastWalk string    `json:"last_walk,omitempty"`
}

// WatchSocket is the file name of the work tree's daemon socket.
func (g *Guard) WatchSocket() string { return g.ws.DaemonSocket() }

// RunOfRef returns the run a ref names (refs/agent-checkpoints/runs/ID), or
// false when it names none.
func RunOfRef(ref string) (record.RunID, bool) { return gitrefs.ParseRunRef(ref) }

// VerifyRun checks a run from its tip back to its first checkpoint as
// records fetched from elsewhere are checked (see patchstore.Store.VerifyRun).
func (g *Guard) VerifyRun(ctx context.Context, id record.RunID) error {
	return runsync.Verify(ctx, g.store, g.refs, id)
}

// FindWorkTree returns the top of the work tree containing dir, as git
// finds it (ErrNotRepository, ErrBare or ErrNoWorkTree otherwise), without
// opening anything else.
func FindWorkTree(ctx context.Context, dir string) (string, error) {
	r, err := git.Discover(ctx, dir)
	if err != nil {
		return "", err
	}
	return r.WorkTree, nil
}
