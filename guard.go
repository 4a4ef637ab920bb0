package gitguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gitguard/gitguard/config"
	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/fault"
	"github.com/gitguard/gitguard/internal/filepatch"
	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/internal/repo"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// ErrRunActive is returned by StartRun when another run is already active.
var ErrRunActive = errors.New("another run is active")

// ErrNoRun is returned when a command needs a run and none is active or given.
var ErrNoRun = errors.New("no active run")

// Options configures Open. The zero value is valid.
type Options struct {
	// Workspace tunes snapshots (ignore globs, size limit, workers).
	Workspace WorkspaceOptions
	// Logger receives Debug and Info records; nil discards.
	Logger *slog.Logger
	// Now stamps records; nil means time.Now.
	Now func() time.Time
	// Getenv, if set, lets Open find the repository and read its git
	// configuration without starting git when the environment does not
	// steer git elsewhere (see git.Open); nil always asks git.
	Getenv func(string) string
}

// Guard is gitguard opened on one work tree. It is not safe for concurrent
// use by several goroutines; separate processes are safe.
type Guard struct {
	h     *repo.Handle
	repo  *git.Repo
	db    *odb.DB
	ws    *workspace.Workspace
	store *patchstore.Store
	refs  *gitrefs.Store
	// Config is the configuration read at Open from flags, git config and
	// HEAD's .gitguard.toml (see configsource.go); zero when none is set.
	Config *config.Config
	log    *slog.Logger
	// wopts are the workspace options given in code; settings the ones a
	// new run starts with; applied those the workspace snapshots with now.
	wopts    workspace.Options
	settings record.Settings
	applied  *record.Settings
	// appliedView is the run's start view the workspace sees with (zero
	// for none; see settings.RunView).
	appliedView record.Hash
	retired     []*workspace.Workspace // opened with other settings before
}

// Open finds the repository containing dir and prepares it. It returns
// ErrNotRepository, ErrBare or ErrNoWorkTree for directories without a work
// tree to guard.
func Open(ctx context.Context, dir string, opts Options) (*Guard, error) {
	h, err := repo.Open(ctx, dir, opts.Getenv)
	if err != nil {
		return nil, err
	}
	if h.Bare() {
		h.Close()
		return nil, fmt.Errorf("%s: %w", h.GitDir, ErrBare)
	}
	g := &Guard{h: h, repo: h.Repo, db: h.DB, log: opts.Logger}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	if err := g.open(ctx, opts); err != nil {
		g.Close()
		return nil, err
	}
	return g, nil
}

// OpenRecords opens the runs of the repository containing dir for reading
// and nothing else: it works in a bare repository too (a server's copy of
// pushed runs). History, runs, checkpoints, the ledger and diffs can be
// read; what needs a work tree (snapshots, calls, status, undo) returns
// ErrBare.
func OpenRecords(ctx context.Context, dir string, opts Options) (*Guard, error) {
	h, err := repo.Open(ctx, dir, opts.Getenv)
	if err != nil {
		return nil, err
	}
	g := &Guard{h: h, repo: h.Repo, db: h.DB, log: opts.Logger, Config: &config.Config{}}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	g.store = patchstore.OpenRepo(h, patchstore.Options{Getenv: opts.Getenv, Now: opts.Now})
	g.store.SetLogger(g.log)
	g.refs = g.store.Refs()
	return g, nil
}

// needWorkTree refuses what a Guard opened with OpenRecords cannot do.
func (g *Guard) needWorkTree() error {
	if g.ws == nil {
		return fmt.Errorf("%s: %w: this needs a work tree", g.repo.GitDir, ErrBare)
	}
	return nil
}

func (g *Guard) open(ctx context.Context, opts Options) error {
	wopts := opts.Workspace.options()
	wopts.Getenv = opts.Getenv
	wopts.RecordView = true // runs keep the view they start with (settings.RunView)
	if wopts.Logger == nil {
		wopts.Logger = opts.Logger
	}
	g.wopts = wopts
	// The workspace and the store share this Guard's discovery of the
	// repository and its object database.
	var err error
	if g.ws, err = workspace.OpenRepo(g.h, wopts); err != nil {
		return err
	}
	// Protection settings: flags, git config, HEAD's .gitguard.toml.
	if err := g.loadSettings(ctx); err != nil {
		return err
	}
	g.store = patchstore.OpenRepo(g.h, patchstore.Options{Getenv: opts.Getenv, Now: opts.Now})
	g.store.SetLogger(g.log)
	g.refs = g.store.Refs()
	return nil
}

// Close releases the object database.
func (g *Guard) Close() error {
	var errs []error
	if g.store != nil {
		errs = append(errs, g.store.Close())
	}
	if g.ws != nil {
		errs = append(errs, g.ws.Close())
	}
	for _, ws := range g.retired {
		errs = append(errs, ws.Close())
	}
	return errors.Join(append(errs, g.h.Close())...)
}

// WorkTree is the absolute path of the top of the guarded work tree.
func (g *Guard) WorkTree() string { return g.repo.WorkTree }

// CheckpointOptions are the fields a runtime may set on any checkpoint.
type CheckpointOptions struct {
	StepID       string
	Label        string
	MessagesRef  string
	ApprovalsRef string
	TraceRef     string
	Budget       *record.Budget

	// keepFinished keeps a finished run finished: the checkpoint is not
	// the agent's (an undo's or redo's), so the run did not go on.
	keepFinished bool
	// Agent names the agent the run records, kept by the run from then
	// on and shown where its runs are listed (gitguard runs --remote).
	Agent string
}

func (o CheckpointOptions) apply(cp *record.Checkpoint, tip *patchstore.Run) {
	cp.StepID, cp.Label = o.StepID, o.Label
	cp.MessagesRef, cp.ApprovalsRef, cp.TraceRef = o.MessagesRef, o.ApprovalsRef, o.TraceRef
	cp.Budget = o.Budget
	cp.Agent = o.Agent
	if tip == nil || !tip.Exists() {
		return
	}
	// Runtime pointers carry over from the previous checkpoint unless set anew.
	prev := tip.Checkpoint
	if o.keepFinished && prev.RunFinished {
		cp.RunFinished, cp.RunFinishedAt = true, patchstore.FinishedAt(prev)
	}
	if cp.StepID == "" {
		cp.StepID = prev.StepID
	}
	if cp.MessagesRef == "" {
		cp.MessagesRef = prev.MessagesRef
	}
	if cp.ApprovalsRef == "" {
		cp.ApprovalsRef = prev.ApprovalsRef
	}
	if cp.TraceRef == "" {
		cp.TraceRef = prev.TraceRef
	}
	if cp.Budget.IsZero() {
		cp.Budget = prev.Budget
	}
}

// ActiveRun returns the worktree's active run id, or "".
func (g *Guard) ActiveRun() (record.RunID, error) { return g.store.ActiveRun() }

// ResolveRun picks the run a command acts on: explicit if given, else the
// active run. With create, a new run is started when none is active.
func (g *Guard) ResolveRun(_ context.Context, explicit record.RunID, create bool) (record.RunID, error) {
	if explicit != "" {
		return explicit, explicit.Validate()
	}
	id, err := g.store.ActiveRun()
	if err != nil || id != "" {
		return id, err
	}
	if !create {
		return "", ErrNoRun
	}
	return "", nil
}

// Snapshot records a checkpoint of the whole workspace in run id (the
// active run when id is empty, a new active run when there is none). walked
// reports whether it walked the work tree itself: false when starting the
// run recorded the snapshot.
func (g *Guard) Snapshot(ctx context.Context, id record.RunID, opts CheckpointOptions) (run *Run, walked bool, err error) {
	r, snap, err := g.snapshot(ctx, id, opts)
	return newRun(r), snap != nil, err
}

// snapshot is Snapshot with the store's run and the snapshot taken.
func (g *Guard) snapshot(ctx context.Context, id record.RunID, opts CheckpointOptions) (*patchstore.Run, *workspace.Snapshot, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, nil, err
	}
	explicit := id
	id, err := g.ResolveRun(ctx, id, true)
	if err != nil {
		return nil, nil, err
	}
	if id == "" || (explicit != "" && !g.runExists(ctx, id)) {
		// Starting the run records its first snapshot: that is this one.
		if id, err = g.ensureRun(ctx, id, opts); err != nil {
			return nil, nil, err
		}
		run, err := g.store.ReadRunCalls(ctx, id)
		return run, nil, err
	}
	if tip, err := g.store.ReadRunCalls(ctx, id); err == nil {
		if err := g.useRunSettings(ctx, tip.Checkpoint); err != nil {
			return nil, nil, err
		}
	}
	// The snapshot's new objects go into the checkpoint's pack: one pack
	// and one round of fsyncs instead of two.
	g.db.StartPackBatch()
	defer g.db.EndPackBatch()
	snap, err := g.ws.Snapshot(ctx)
	if err != nil {
		return nil, nil, err
	}
	// Crash point: the snapshot's blobs and trees are collected (written,
	// past the batch's memory bound), no record yet.
	fault.Point("snapshot.captured")
	run, err := g.store.CommitCalls(ctx, id, nil, func(tip *patchstore.Run) (*record.Checkpoint, error) {
		cp := filepatch.Checkpoint(snap, record.KindSnapshot)
		opts.apply(cp, tip)
		return cp, nil
	})
	return run, snap, err
}

func (g *Guard) runExists(ctx context.Context, id record.RunID) bool {
	_, err := g.store.ReadRunCalls(ctx, id)
	return err == nil
}

// StartRun starts run id (a new id when empty), records its first
// checkpoint and makes it the worktree's active run. Starting a run that
// exists continues it. It returns ErrRunActive if another run is active.
func (g *Guard) StartRun(ctx context.Context, id record.RunID, opts CheckpointOptions) (*Run, error) {
	return runOf(g.startRun(ctx, id, opts))
}

// startRun is StartRun with the store's run.
func (g *Guard) startRun(ctx context.Context, id record.RunID, opts CheckpointOptions) (*patchstore.Run, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, err
	}
	active, err := g.store.ActiveRun()
	if err != nil {
		return nil, err
	}
	if id == "" {
		id = record.NewRunID(time.Now())
	}
	if active != "" && active != id {
		return nil, fmt.Errorf("%w: %s", ErrRunActive, active)
	}
	// A new run records the settings it starts with; a run that exists
	// continues with its own.
	settings, err := g.newRunSettings(ctx)
	if err != nil {
		return nil, err
	}
	if tip, err := g.store.ReadRunCalls(ctx, id); err == nil {
		settings = nil
		if err := g.useRunSettings(ctx, tip.Checkpoint); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, patchstore.ErrUnknownRun) {
		return nil, err
	}
	g.db.StartPackBatch() // one pack for the snapshot and the checkpoint, as Snapshot
	defer g.db.EndPackBatch()
	snapshot := g.ws.Snapshot
	if settings != nil {
		// A new run's first checkpoint counts its changes against HEAD.
		snapshot = g.ws.SnapshotForHead
	}
	snap, err := snapshot(ctx)
	if err != nil {
		return nil, err
	}
	run, err := g.store.CommitCalls(ctx, id, nil, func(tip *patchstore.Run) (*record.Checkpoint, error) {
		cp := filepatch.Checkpoint(snap, record.KindRunStart)
		if !tip.Exists() {
			cp.Settings = settings
		}
		opts.apply(cp, tip)
		return cp, nil
	})
	if err != nil {
		return nil, err
	}
	return run, g.store.SetActiveRun(id)
}

// FinishRun records a last checkpoint of run id (the active run when empty),
// marks it finished and clears the active run.
func (g *Guard) FinishRun(ctx context.Context, id record.RunID, opts CheckpointOptions) (*Run, error) {
	return runOf(g.finishRun(ctx, id, opts))
}

// finishRun is FinishRun with the store's run.
func (g *Guard) finishRun(ctx context.Context, id record.RunID, opts CheckpointOptions) (*patchstore.Run, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, err
	}
	id, err := g.ResolveRun(ctx, id, false)
	if err != nil {
		return nil, err
	}
	tip, err := g.store.ReadRunCalls(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := g.useRunSettings(ctx, tip.Checkpoint); err != nil {
		return nil, err
	}
	snap, err := g.ws.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	run, err := g.store.CommitCalls(ctx, id, nil, func(tip *patchstore.Run) (*record.Checkpoint, error) {
		cp := filepatch.Checkpoint(snap, record.KindRunFinish)
		opts.apply(cp, tip)
		cp.RunFinished = true
		return cp, nil
	})
	if err != nil {
		return nil, err
	}
	return run, g.store.ClearActiveRun(id)
}
