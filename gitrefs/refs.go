package gitrefs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/gitguard/gitguard/internal/atomicfile"
	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/record"
)

// ErrRefChanged is returned when a checkpoint ref moved between read and
// update, or another process held its lock: the caller should re-read and retry.
var ErrRefChanged = errors.New("checkpoint ref changed concurrently")

// ErrOutsideNamespace is returned for any attempt to write a ref outside Namespace.
var ErrOutsideNamespace = errors.New("ref outside " + Namespace)

// Ref is a ref name and the object it points at.
type Ref struct {
	Name string
	Hash record.Hash
}

// Store reads and updates the private refs of one repository. It is safe for
// concurrent use; concurrency control is git's ref locking.
type Store struct {
	repo *git.Repo
}

// Open returns a Store for the repository containing dir. getenv, if set,
// lets it find the repository without starting git when the environment
// does not steer git elsewhere; nil always asks git.
func Open(ctx context.Context, dir string, getenv func(string) string) (*Store, error) {
	r, _, err := git.OpenAllowBare(ctx, dir, getenv)
	if err != nil {
		return nil, err
	}
	return New(r), nil
}

// New returns a Store for the repository r found already: for the packages
// of this module that opened it.
func New(r *git.Repo) *Store { return &Store{repo: r} }

// Read returns the object ref points at, or record.ZeroHash when it does not exist.
//
// A run ref (RunRef) that does not exist is looked for under the name older
// writers gave it (see legacyOf).
func (s *Store) Read(ctx context.Context, ref string) (record.Hash, error) {
	h, err := s.readExact(ctx, ref)
	if err != nil || !h.IsZero() {
		return h, err
	}
	if legacy, ok := legacyOf(ref); ok {
		return s.readExact(ctx, legacy)
	}
	return h, nil
}

// legacyOf returns, for the ref RunRef gives a run id with uppercase
// letters, the name writers before case escaping gave the same run.
func legacyOf(ref string) (string, bool) {
	id, ok := ParseRunRef(ref)
	if !ok || RunRef(id) != ref {
		return "", false
	}
	legacy := legacyRunRef(id)
	return legacy, legacy != ref
}

// resolve returns the name run ref has in this repository: ref, or its
// legacy name when only that exists.
func (s *Store) resolve(ctx context.Context, ref string) (string, error) {
	legacy, ok := legacyOf(ref)
	if !ok {
		return ref, nil
	}
	h, err := s.readExact(ctx, ref)
	if err != nil || !h.IsZero() {
		return ref, err
	}
	if h, err = s.readExact(ctx, legacy); err != nil {
		return ref, err
	} else if !h.IsZero() {
		return legacy, nil
	}
	return ref, nil
}

func (s *Store) readExact(ctx context.Context, ref string) (record.Hash, error) {
	if !strings.HasPrefix(ref, Namespace) {
		return record.ZeroHash, fmt.Errorf("read %s: %w", ref, ErrOutsideNamespace)
	}
	if h, ok := s.readFiles(ref); ok {
		return h, nil
	}
	refs, err := s.list(ctx, ref)
	if err != nil {
		return record.ZeroHash, err
	}
	for _, r := range refs {
		if r.Name == ref {
			return r.Hash, nil
		}
	}
	return record.ZeroHash, nil
}

// readFiles reads ref as git does with the files backend, saving a git
// process on every command: the loose ref file, else packed-refs. Git
// writes both by rename, so a reader sees a whole old or new value. ok is
// false whenever git must decide (a reftable repository, a symbolic or
// unreadable ref).
func (s *Store) readFiles(ref string) (record.Hash, bool) {
	common := s.repo.CommonDir
	if _, err := os.Stat(filepath.Join(common, "reftable")); err == nil {
		return record.ZeroHash, false
	}
	h, err := readLoose(filepath.Join(common, filepath.FromSlash(ref)))
	if err == nil {
		return h, true
	}
	if errors.Is(err, errNotPlain) {
		return record.ZeroHash, false
	}
	if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return record.ZeroHash, false
	}
	packed, err := os.ReadFile(filepath.Join(common, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return record.ZeroHash, true
	}
	if err != nil {
		return record.ZeroHash, false
	}
	for _, line := range strings.Split(string(packed), "\n") {
		id, name, ok := strings.Cut(strings.TrimSuffix(line, "\r"), " ")
		if ok && name == ref {
			h, err := record.ParseHash(id)
			return h, err == nil
		}
	}
	return record.ZeroHash, true
}

// List returns every ref under Namespace, sorted by name.
func (s *Store) List(ctx context.Context) ([]Ref, error) {
	return s.list(ctx, Namespace)
}

// Branches returns every local branch (refs/heads/) and its tip, sorted
// by name: from git's ref files where they are plain (see listFiles), else
// from git.
func (s *Store) Branches(ctx context.Context) ([]Ref, error) {
	return s.list(ctx, "refs/heads/")
}

func (s *Store) list(ctx context.Context, pattern string) ([]Ref, error) {
	if refs, ok := s.listFiles(pattern); ok {
		return refs, nil
	}
	out, err := s.repo.Git(ctx, "for-each-ref", "--format=%(objectname) %(refname)", "--", pattern)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", pattern, err)
	}
	var refs []Ref
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		hash, name, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		h, err := record.ParseHash(hash)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", pattern, err)
		}
		refs = append(refs, Ref{Name: name, Hash: h})
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Name < refs[j].Name })
	return refs, nil
}

// Update moves ref from old to new atomically. Old is record.ZeroHash to create
// a ref that must not exist yet. It returns ErrRefChanged when ref is not at
// old (or is locked by another writer), ErrOutsideNamespace for refs that are
// not gitguard's. The update is durable when Update returns (git fsyncs loose
// refs when core.fsync asks; the object it points at must already be written).
func (s *Store) Update(ctx context.Context, ref string, newHash, old record.Hash, msg string) error {
	return s.UpdateAlongside(ctx, ref, newHash, old, msg, Alongside{})
}

// Alongside is work an update waits for beside its own flushes, so that
// the flushes' waits and the work overlap.
type Alongside struct {
	// Ready makes the new value's objects durable (and may check them)
	// while the new value is flushed to the ref's lock; the ref moves only
	// if it returns nil. It runs with the ref locked: it must only flush
	// and check what is written already. Nil is always ready.
	Ready func() error
	// Moved runs once the ref has moved, while the move is flushed.
	Moved func()
}

// UpdateAlongside is Update for a value whose objects are written but not
// yet durable, doing a's work beside the update's flushes. It returns once
// both are done; Moved runs only if the ref moved.
func (s *Store) UpdateAlongside(ctx context.Context, ref string, newHash, old record.Hash, msg string, a Alongside) error {
	if !strings.HasPrefix(ref, Namespace) {
		return fmt.Errorf("update %s: %w", ref, ErrOutsideNamespace)
	}
	if a.Ready == nil {
		a.Ready = func() error { return nil }
	}
	if a.Moved == nil {
		a.Moved = func() {}
	}
	if legacy, ok := legacyOf(ref); ok {
		if moved, err := s.updateLegacy(ctx, ref, legacy, newHash, old, msg, a); moved || err != nil {
			return err
		}
	}
	if done, err := s.updateFiles(ref, newHash, old, a); done {
		if err != nil {
			return fmt.Errorf("update %s: %w", ref, err)
		}
		return nil
	}
	if err := a.Ready(); err != nil {
		return fmt.Errorf("update %s: %w", ref, err)
	}
	release := s.beforeGitLocks(ref)
	defer release()
	_, err := s.repo.Git(ctx, "-c", "core.fsync=reference", "update-ref", "--no-deref", "-m", msg, ref, newHash.String(), old.String())
	if err != nil {
		return refError("update", ref, err)
	}
	a.Moved()
	return nil
}

// updateLegacy handles the update of a run ref whose run an older writer
// named legacy: when legacy holds the run (at old), the run moves to ref in
// one transaction that creates ref and deletes legacy; a new ref is never
// created beside an existing legacy one (ErrRefChanged: re-read, the run
// exists). moved is false when legacy is not in the way.
func (s *Store) updateLegacy(ctx context.Context, ref, legacy string, newHash, old record.Hash, msg string, a Alongside) (moved bool, err error) {
	cur, err := s.readExact(ctx, legacy)
	if err != nil || cur.IsZero() {
		return false, err
	}
	if now, err := s.readExact(ctx, ref); err != nil || !now.IsZero() {
		return false, err // the run has its escaped name already: legacy is a stale copy
	}
	if cur != old {
		return true, fmt.Errorf("update %s: %w", ref, ErrRefChanged)
	}
	if err := a.Ready(); err != nil {
		return true, fmt.Errorf("update %s: %w", ref, err)
	}
	release := s.beforeGitLocks(legacy)
	defer release()
	in := fmt.Sprintf("create %s %s\ndelete %s %s\n", ref, newHash, legacy, old)
	_, err = git.Cmd{Dir: s.repo.WorkTree, Args: []string{"-c", "core.fsync=reference", "update-ref", "--no-deref", "-m", msg, "--stdin"},
		Stdin: strings.NewReader(in)}.Run(ctx)
	if err != nil {
		return true, refError("update", ref, err)
	}
	a.Moved()
	return true, nil
}

// beforeGitLocks is for a git command about to take ref's lock: it breaks
// the lock if a dead writer left it (see stalelock.go) and holds the
// writers file until release.
func (s *Store) beforeGitLocks(ref string) (release func()) {
	lock := filepath.Join(s.repo.CommonDir, filepath.FromSlash(ref)) + ".lock"
	if _, err := os.Lstat(lock); err == nil {
		s.breakStale(lock)
	}
	return s.holdWriters()
}

// updateFiles updates a loose ref the way git's files backend does, which
// saves starting git for every checkpoint: take <ref>.lock (O_EXCL, the
// lock git itself honours), check the old value under the lock (loose ref,
// then packed-refs), write and fsync the new value while a.Ready runs,
// rename the lock onto the ref and fsync the folder while a.Moved runs, so
// the update survives a power cut. done is false, with nothing changed,
// whenever git must do it:
// a reftable repository, a ref that has a reflog (git appends to it), a
// file in the way of the ref's folders, or anything unexpected.
func (s *Store) updateFiles(ref string, newHash, old record.Hash, a Alongside) (done bool, err error) {
	common := s.repo.CommonDir
	if _, err := os.Stat(filepath.Join(common, "reftable")); err == nil {
		return false, nil
	}
	if _, err := os.Lstat(filepath.Join(common, "logs", filepath.FromSlash(ref))); !errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	path := filepath.Join(common, filepath.FromSlash(ref))
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o777); err != nil { // the umask applies, as for git
		return false, nil
	}
	lock := path + ".lock"
	release := s.holdWriters()
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, os.ErrExist) {
		release()
		if !s.breakStale(lock) {
			return true, ErrRefChanged // another writer holds it: re-read and retry
		}
		release = s.holdWriters()
		f, err = os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, os.ErrExist) {
			release()
			return true, ErrRefChanged
		}
	}
	defer release() // after the lock is let go of, renamed or removed
	if err != nil {
		return false, nil
	}
	locked := true
	defer func() {
		if locked {
			f.Close()
			os.Remove(lock)
		}
	}()
	cur, ok := s.readFiles(ref)
	if !ok {
		return false, nil
	}
	if cur != old {
		return true, ErrRefChanged
	}
	if _, err := f.WriteString(newHash.String() + "\n"); err != nil {
		return true, err
	}
	readyErr := make(chan error, 1)
	go func() { readyErr <- a.Ready() }()
	err = f.Sync()
	if rerr := <-readyErr; err == nil {
		err = rerr
	}
	if err != nil {
		return true, err
	}
	if err := f.Close(); err != nil {
		return true, err
	}
	if err := atomicfile.Rename(lock, path); err != nil {
		return true, err
	}
	locked = false
	moved := make(chan struct{})
	go func() {
		defer close(moved)
		a.Moved()
	}()
	err = syncFolder(dir)
	<-moved
	return true, err
}

// syncFolder flushes the folder a ref was renamed into.
func syncFolder(dir string) error {
	if afterRename != nil {
		afterRename()
	}
	d, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		// git pack-refs (git gc) packed the ref and pruned its emptied
		// folder meanwhile: the value is in packed-refs, git's to sync.
		return nil
	}
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// afterRename, set by tests, runs between the rename of a ref's lock onto
// the ref and the sync of its folder: where a git pack-refs may pack the
// ref and remove the folder.
var afterRename func()

// Delete removes ref if it still points at old.
func (s *Store) Delete(ctx context.Context, ref string, old record.Hash) error {
	if !strings.HasPrefix(ref, Namespace) {
		return fmt.Errorf("delete %s: %w", ref, ErrOutsideNamespace)
	}
	ref, err := s.resolve(ctx, ref)
	if err != nil {
		return err
	}
	release := s.beforeGitLocks(ref)
	defer release()
	_, err = s.repo.Git(ctx, "update-ref", "--no-deref", "-d", ref, old.String())
	return refError("delete", ref, err)
}

func refError(op, ref string, err error) error {
	if err == nil {
		return nil
	}
	var ee *git.ExitError
	if errors.As(err, &ee) {
		msg := ee.Stderr
		if strings.Contains(msg, "but expected") || strings.Contains(msg, "already exists") ||
			strings.Contains(msg, ".lock") || strings.Contains(msg, "unable to resolve reference") ||
			strings.Contains(msg, "cannot lock ref") {
			return fmt.Errorf("%s %s: %w", op, ref, ErrRefChanged)
		}
	}
	return fmt.Errorf("%s %s: %w", op, ref, err)
}
