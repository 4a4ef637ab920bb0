package gitguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gitguard/gitguard/config"
	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/internal/repo"
	"github.com/gitguard/gitguard/internal/runlife"
	"github.com/gitguard/gitguard/internal/settings"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// ErrRunActive is returned by StartRun when another run is already active.
var ErrRunActive = runlife.ErrRunActive

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
	// views holds the workspace options given in code, the settings a new
	// run starts with, and those ws snapshots with now (see useSettings).
	views settings.Views
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
	if opts.Workspace.UseDaemon {
		g.settleDaemon(ctx)
	}
	g.store = patchstore.OpenRepo(h, patchstore.Options{Getenv: opts.Getenv, Now: opts.Now})
	g.store.SetLogger(g.log)
	g.refs = g.store.Refs()
	return g, nil
}

// settleDaemon waits for what the work tree's watch daemon answered before
// writing (a tool use's end, see Daemon.Later), so that what this Guard
// reads includes it.
func (g *Guard) settleDaemon(ctx context.Context) {
	if err := workspace.SettleDaemon(ctx, g.h.GitDir); err != nil {
		g.log.Info("the watch daemon did not say it was done", "err", err)
	}
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
	g.views.Handle, g.views.Base = g.h, wopts
	// The workspace and the store share this Guard's discovery of the
	// repository and its object database.
	var err error
	if g.ws, err = workspace.OpenRepo(g.h, wopts); err != nil {
		return err
	}
	if wopts.UseDaemon {
		g.settleDaemon(ctx)
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
	errs = append(errs, g.views.Close())
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
	runlife.Inherit(cp, tip, o.keepFinished) // runtime pointers carry over unless set anew
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
	return g.runs().Snapshot(ctx, id, opts.apply)
}

// runs records the checkpoints of whole runs, with the workspace
// following the run it records.
func (g *Guard) runs() *runlife.Runs {
	return &runlife.Runs{DB: g.db, Store: g.store, Settings: runSettings{g}}
}

// runSettings lets runlife make the Guard's workspace follow a run.
type runSettings struct{ g *Guard }

func (s runSettings) UseRun(ctx context.Context, cp *record.Checkpoint) error {
	return s.g.useRunSettings(ctx, cp)
}
func (s runSettings) NewRun(ctx context.Context) (*record.Settings, error) {
	return s.g.newRunSettings(ctx)
}
func (s runSettings) Workspace() *workspace.Workspace { return s.g.ws }

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
	return g.runs().Start(ctx, id, opts.apply)
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
	return g.runs().Finish(ctx, id, opts.apply)
}
