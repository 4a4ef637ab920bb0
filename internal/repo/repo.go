// Package repo opens a repository for gitguard's packages: where it is, its
// git configuration, and its object database, which is shared by every
// opener of the same repository in one process (pack indexes are mapped
// once, and objects collected by one writer's batch are seen by all).
package repo

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
)

// Handle is one opening of a repository. Close it when done; the object
// database is closed when its last handle is.
type Handle struct {
	*git.Repo
	Config git.Config
	DB     *odb.DB

	once sync.Once
}

type sharedDB struct {
	db   *odb.DB
	refs int
}

var (
	mu  sync.Mutex
	dbs = map[string]*sharedDB{} // by common dir
)

// Open finds the repository containing dir (see git.Open; getenv nil means
// always ask git) and opens its object database, or shares the one already
// open in this process.
//
// When ctx carries a handle (WithHandle) for the repository whose top is
// dir, Open shares it instead of finding the repository again: one gitguard
// Guard opens its workspace, store and refs from one discovery.
func Open(ctx context.Context, dir string, getenv func(string) string) (*Handle, error) {
	if h, ok := FromContext(ctx, dir); ok {
		mu.Lock()
		defer mu.Unlock()
		dbs[h.CommonDir].refs++
		return &Handle{Repo: h.Repo, Config: h.Config, DB: h.DB}, nil
	}
	r, cfg, err := git.OpenAllowBare(ctx, dir, getenv)
	if err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	s := dbs[r.CommonDir]
	if s == nil {
		db, err := odb.Open(r.CommonDir)
		if err != nil {
			return nil, err
		}
		s = &sharedDB{db: db}
		dbs[r.CommonDir] = s
	}
	s.refs++
	return &Handle{Repo: r, Config: cfg, DB: s.db}, nil
}

// Close releases the handle's share of the object database. Calling it
// again does nothing.
func (h *Handle) Close() error {
	var err error
	h.once.Do(func() {
		mu.Lock()
		defer mu.Unlock()
		s := dbs[h.CommonDir]
		if s == nil || s.db != h.DB {
			return
		}
		if s.refs--; s.refs == 0 {
			delete(dbs, h.CommonDir)
			err = s.db.Close()
		}
	})
	return err
}

type ctxKey struct{}

// WithHandle returns a context under which Open (and FromContext) reuse h
// for h's repository instead of finding it again.
func WithHandle(ctx context.Context, h *Handle) context.Context {
	return context.WithValue(ctx, ctxKey{}, h)
}

// FromContext returns the handle ctx carries when dir is its work tree (or
// its git dir, for a bare repository).
func FromContext(ctx context.Context, dir string) (*Handle, bool) {
	h, ok := ctx.Value(ctxKey{}).(*Handle)
	if !ok || (dir != h.WorkTree && dir != h.GitDir) {
		return nil, false
	}
	return h, true
}

// StateDir is gitguard's private folder for this worktree: inside its git
// dir, never in the work tree, one per linked worktree.
func (h *Handle) StateDir() string { return filepath.Join(h.GitDir, "gitguard") }
