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
	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/workspace"
)

// ErrRunActive is returned by StartRun when another run is already active.
var ErrRunActive = errors.New("another run is active")

// ErrNoRun is returned when a command needs a run and none is active or given.
var ErrNoRun = errors.New("no active run")

// Options configures Open. The zero value is valid.
type Options struct {
	// Workspace tunes snapshots (ignore globs, size limit, workers).
	Workspace workspace.Options
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
	Repo  *git.Repo
	DB    *odb.DB
	WS    *workspace.Workspace
	Store *patchstore.Store
	// Config is the work tree's .gitguard.toml (zero when there is none).
	Config *config.Config
	log    *slog.Logger
}

// Open finds the repository containing dir and prepares it. It returns
// git.ErrNotRepository, git.ErrBare or git.ErrNoWorkTree for directories
// without a work tree to guard.
func Open(ctx context.Context, dir string, opts Options) (*Guard, error) {
	repo, cfg, err := git.Open(ctx, dir, opts.Getenv)
	if err != nil {
		return nil, err
	}
	db, err := odb.Open(repo.CommonDir)
	if err != nil {
		return nil, err
	}
	wopts := opts.Workspace
	conf, err := config.Load(repo.WorkTree) // .gitguard.toml; see config.go
	if err != nil {
		return nil, err
	}
	wopts = applyConfig(wopts, conf)
	if wopts.ExcludesFile == "" {
		v, _ := cfg.Get("core.excludesFile")
		wopts.ExcludesFile = workspace.DefaultExcludesFile(v)
	}
	if wopts.AttributesFile == "" {
		v, _ := cfg.Get("core.attributesFile")
		wopts.AttributesFile = workspace.DefaultAttributesFile(v)
	}
	if wopts.Logger == nil {
		wopts.Logger = opts.Logger
	}
	ws, err := workspace.Open(repo, db, cfg, wopts)
	if err != nil {
		db.Close()
		return nil, err
	}
	st := patchstore.New(ws)
	st.Now = opts.Now
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Guard{Repo: repo, DB: db, WS: ws, Store: st, Config: conf, log: log}, nil
}

// Close releases the object database.
func (g *Guard) Close() error { return g.DB.Close() }

// CheckpointOptions are the fields a runtime may set on any checkpoint.
type CheckpointOptions struct {
	StepID       string
	Label        string
	MessagesRef  string
	ApprovalsRef string
	TraceRef     string
	Budget       *patchstore.Budget
}

func (o CheckpointOptions) apply(cp *patchstore.Checkpoint, tip *patchstore.Run) {
	cp.StepID, cp.Label = o.StepID, o.Label
	cp.MessagesRef, cp.ApprovalsRef, cp.TraceRef = o.MessagesRef, o.ApprovalsRef, o.TraceRef
	cp.Budget = o.Budget
	if tip == nil || !tip.Exists() {
		return
	}
	// Runtime pointers carry over from the previous checkpoint unless set anew.
	prev := tip.Checkpoint
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
func (g *Guard) ActiveRun() (string, error) { return g.Store.ActiveRun() }

// ResolveRun picks the run a command acts on: explicit if given, else the
// active run. With create, a new run is started when none is active.
func (g *Guard) ResolveRun(_ context.Context, explicit string, create bool) (string, error) {
	if explicit != "" {
		return explicit, gitrefs.ValidateRunID(explicit)
	}
	id, err := g.Store.ActiveRun()
	if err != nil || id != "" {
		return id, err
	}
	if !create {
		return "", ErrNoRun
	}
	return "", nil
}

// snapshotCheckpoint fills cp from a fresh workspace snapshot.
func snapshotCheckpoint(snap *workspace.Snapshot, kind string) *patchstore.Checkpoint {
	cp := &patchstore.Checkpoint{
		Kind:         kind,
		Head:         patchstore.Head{Commit: snap.Head.Commit, Ref: snap.Head.Ref},
		IndexTree:    snap.IndexTree,
		WorktreeTree: snap.Worktree,
	}
	for _, o := range snap.Oversize {
		cp.Oversize = append(cp.Oversize, patchstore.FileRecord{Path: o.Path, Mode: o.Mode, Hash: o.Hash, Size: o.Size})
	}
	for _, s := range snap.Skipped {
		cp.Skipped = append(cp.Skipped, patchstore.Skipped{Path: s.Path, Reason: s.Reason})
	}
	return cp
}

// Snapshot records a checkpoint of the whole workspace in run id (the
// active run when id is empty, a new active run when there is none).
func (g *Guard) Snapshot(ctx context.Context, id string, opts CheckpointOptions) (*patchstore.Run, *workspace.Snapshot, error) {
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
		run, err := g.Store.ReadRunCalls(ctx, id)
		return run, nil, err
	}
	snap, err := g.WS.Snapshot(ctx)
	if err != nil {
		return nil, nil, err
	}
	// Crash point: the snapshot's blobs and trees are written, no record yet.
	fault.Point("snapshot.captured")
	run, err := g.Store.CommitCalls(ctx, id, nil, func(tip *patchstore.Run) (*patchstore.Checkpoint, error) {
		cp := snapshotCheckpoint(snap, patchstore.KindSnapshot)
		opts.apply(cp, tip)
		return cp, nil
	})
	return run, snap, err
}

func (g *Guard) runExists(ctx context.Context, id string) bool {
	_, err := g.Store.ReadRunCalls(ctx, id)
	return err == nil
}

// StartRun starts run id (a new id when empty), records its first
// checkpoint and makes it the worktree's active run. Starting a run that
// exists continues it. It returns ErrRunActive if another run is active.
func (g *Guard) StartRun(ctx context.Context, id string, opts CheckpointOptions) (*patchstore.Run, error) {
	active, err := g.Store.ActiveRun()
	if err != nil {
		return nil, err
	}
	if id == "" {
		id = patchstore.NewRunID(time.Now())
	} else if err := gitrefs.ValidateRunID(id); err != nil {
		return nil, err
	}
	if active != "" && active != id {
		return nil, fmt.Errorf("%w: %s", ErrRunActive, active)
	}
	snap, err := g.WS.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	run, err := g.Store.CommitCalls(ctx, id, nil, func(tip *patchstore.Run) (*patchstore.Checkpoint, error) {
		cp := snapshotCheckpoint(snap, patchstore.KindRunStart)
		opts.apply(cp, tip)
		return cp, nil
	})
	if err != nil {
		return nil, err
	}
	return run, g.Store.SetActiveRun(id)
}

// FinishRun records a last checkpoint of run id (the active run when empty),
// marks it finished and clears the active run.
func (g *Guard) FinishRun(ctx context.Context, id string, opts CheckpointOptions) (*patchstore.Run, error) {
	id, err := g.ResolveRun(ctx, id, false)
	if err != nil {
		return nil, err
	}
	if _, err := g.Store.ReadRunCalls(ctx, id); err != nil {
		return nil, err
	}
	snap, err := g.WS.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	run, err := g.Store.CommitCalls(ctx, id, nil, func(tip *patchstore.Run) (*patchstore.Checkpoint, error) {
		cp := snapshotCheckpoint(snap, patchstore.KindRunFinish)
		opts.apply(cp, tip)
		cp.RunFinished = true
		return cp, nil
	})
	if err != nil {
		return nil, err
	}
	return run, g.Store.ClearActiveRun(id)
}
