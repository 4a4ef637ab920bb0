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

	"github.com/gitguard/gitguard/internal/git"
)

// ErrRefChanged is returned when a checkpoint ref moved between read and
// update, or another process held its lock: the caller should re-read and retry.
var ErrRefChanged = errors.New("checkpoint ref changed concurrently")

// ErrOutsideNamespace is returned for any attempt to write a ref outside Namespace.
var ErrOutsideNamespace = errors.New("ref outside " + Namespace)

// Ref is a ref name and the object it points at.
type Ref struct {
	Name string
	Hash git.Hash
}

// Store reads and updates the private refs of one repository. It is safe for
// concurrent use; concurrency control is git's ref locking.
type Store struct {
	repo *git.Repo
}

// New returns a Store for repo.
func New(repo *git.Repo) *Store { return &Store{repo: repo} }

// Read returns the object ref points at, or git.ZeroHash when it does not exist.
func (s *Store) Read(ctx context.Context, ref string) (git.Hash, error) {
	if !strings.HasPrefix(ref, Namespace) {
		return git.ZeroHash, fmt.Errorf("read %s: %w", ref, ErrOutsideNamespace)
	}
	if h, ok := s.readFiles(ref); ok {
		return h, nil
	}
	refs, err := s.list(ctx, ref)
	if err != nil {
		return git.ZeroHash, err
	}
	for _, r := range refs {
		if r.Name == ref {
			return r.Hash, nil
		}
	}
	return git.ZeroHash, nil
}

// readFiles reads ref as git does with the files backend, saving a git
// process on every command: the loose ref file, else packed-refs. Git
// writes both by rename, so a reader sees a whole old or new value. ok is
// false whenever git must decide (a reftable repository, a symbolic or
// unreadable ref).
func (s *Store) readFiles(ref string) (git.Hash, bool) {
	common := s.repo.CommonDir
	if _, err := os.Stat(filepath.Join(common, "reftable")); err == nil {
		return git.ZeroHash, false
	}
	data, err := os.ReadFile(filepath.Join(common, filepath.FromSlash(ref)))
	if err == nil {
		h, err := git.ParseHash(strings.TrimSpace(string(data)))
		return h, err == nil
	}
	if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return git.ZeroHash, false
	}
	packed, err := os.ReadFile(filepath.Join(common, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return git.ZeroHash, true
	}
	if err != nil {
		return git.ZeroHash, false
	}
	for _, line := range strings.Split(string(packed), "\n") {
		id, name, ok := strings.Cut(strings.TrimSuffix(line, "\r"), " ")
		if ok && name == ref {
			h, err := git.ParseHash(id)
			return h, err == nil
		}
	}
	return git.ZeroHash, true
}

// List returns every ref under Namespace, sorted by name.
func (s *Store) List(ctx context.Context) ([]Ref, error) {
	return s.list(ctx, Namespace)
}

func (s *Store) list(ctx context.Context, pattern string) ([]Ref, error) {
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
		h, err := git.ParseHash(hash)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", pattern, err)
		}
		refs = append(refs, Ref{Name: name, Hash: h})
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Name < refs[j].Name })
	return refs, nil
}

// Update moves ref from old to new atomically. Old is git.ZeroHash to create
// a ref that must not exist yet. It returns ErrRefChanged when ref is not at
// old (or is locked by another writer), ErrOutsideNamespace for refs that are
// not gitguard's. The update is durable when Update returns (git fsyncs loose
// refs when core.fsync asks; the object it points at must already be written).
func (s *Store) Update(ctx context.Context, ref string, newHash, old git.Hash, msg string) error {
	if !strings.HasPrefix(ref, Namespace) {
		return fmt.Errorf("update %s: %w", ref, ErrOutsideNamespace)
	}
	_, err := s.repo.Git(ctx, "-c", "core.fsync=reference", "update-ref", "--no-deref", "-m", msg, ref, newHash.String(), old.String())
	return refError("update", ref, err)
}

// Delete removes ref if it still points at old.
func (s *Store) Delete(ctx context.Context, ref string, old git.Hash) error {
	if !strings.HasPrefix(ref, Namespace) {
		return fmt.Errorf("delete %s: %w", ref, ErrOutsideNamespace)
	}
	_, err := s.repo.Git(ctx, "update-ref", "--no-deref", "-d", ref, old.String())
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
