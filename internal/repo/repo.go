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
// open in this process. A caller that holds a handle already passes it on
// (Share) rather than finding the repository again.
func Open(ctx context.Context, dir string, getenv func(string) string) (*Handle, error) {
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

// Share returns another handle on h's repository from h's discovery: the
// same location, configuration and object database, with a share of its
// own to Close. One gitguard Guard opens its workspace, store and refs
// from one discovery this way. h must not be closed yet. It is safe for
// concurrent use.
func (h *Handle) Share() *Handle {
	mu.Lock()
	defer mu.Unlock()
	dbs[h.CommonDir].refs++
	return &Handle{Repo: h.Repo, Config: h.Config, DB: h.DB}
}

// StateDir is gitguard's private folder for this worktree: inside its git
// dir, never in the work tree, one per linked worktree.
func (h *Handle) StateDir() string { return filepath.Join(h.GitDir, "gitguard") }
