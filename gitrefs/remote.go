package gitrefs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/record"
)

// ListRemote returns the run refs of remote (git ls-remote: one round trip,
// no object fetched), sorted by name. Refs under runs/ whose name is not a
// valid run id are left out. It returns ErrRemote when git could not list
// them, ErrBadRemote for a remote it will not pass to git.
func (s *Store) ListRemote(ctx context.Context, remote string) ([]Ref, error) {
	return s.listRemote(ctx, remote, "list runs of")
}

func (s *Store) listRemote(ctx context.Context, remote, op string) ([]Ref, error) {
	if err := ValidateRemote(remote); err != nil {
		return nil, err
	}
	out, err := s.repo.Git(ctx, "ls-remote", "--refs", "--", remote, RunsPattern)
	if err != nil {
		return nil, remoteError(op, remote, err)
	}
	var refs []Ref
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		hash, name, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		if _, ok := ParseRunRef(name); !ok {
			continue
		}
		h, err := record.ParseHash(hash)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", op, remote, err)
		}
		refs = append(refs, Ref{Name: name, Hash: h})
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Name < refs[j].Name })
	return refs, nil
}

// Git configuration keys for sharing runs.
const (
	// ConfigRemote names the remote (name or URL) runs go to and come from
	// when no remote is given: a repository for runs only, apart from the
	// one the user's branches go to.
	ConfigRemote = "gitguard.remote"
	// ConfigPushBatch is the most run refs one git push carries.
	ConfigPushBatch = "gitguard.pushBatch"
)

// SyncConfig is what git configuration says about sharing runs.
type SyncConfig struct {
	Remote    string // "" when gitguard.remote is unset
	PushBatch int    // 0 when gitguard.pushBatch is unset
}

// ErrBadConfig is returned by ReadSyncConfig for a value it cannot use.
var ErrBadConfig = errors.New("bad git config value")

// ReadSyncConfig reads gitguard.remote and gitguard.pushBatch from git's
// configuration (every scope git reads). It returns ErrBadConfig for a
// value it cannot use.
func (s *Store) ReadSyncConfig(ctx context.Context) (SyncConfig, error) {
	var c SyncConfig
	get := func(key string) (string, bool, error) {
		out, err := s.repo.Git(ctx, "config", "--get", key)
		if err != nil {
			if git.ExitCode(err) == 1 {
				return "", false, nil
			}
			return "", false, fmt.Errorf("read %s: %w", key, err)
		}
		return strings.TrimRight(string(out), "\n"), true, nil
	}
	v, ok, err := get(ConfigRemote)
	if err != nil {
		return c, err
	}
	if ok {
		if err := ValidateRemote(v); err != nil {
			return c, fmt.Errorf("%w: %s=%q: want a remote name or URL", ErrBadConfig, ConfigRemote, v)
		}
		c.Remote = v
	}
	v, ok, err = get(ConfigPushBatch)
	if err != nil {
		return c, err
	}
	if ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > MaxPushBatch {
			return c, fmt.Errorf("%w: %s=%q: want a number of refs from 1 to %d", ErrBadConfig, ConfigPushBatch, v, MaxPushBatch)
		}
		c.PushBatch = n
	}
	return c, nil
}
