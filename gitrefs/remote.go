package gitrefs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

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
	refs, err := parseLsRemote(out)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, remote, err)
	}
	return refs, nil
}

// parseLsRemote reads git ls-remote's output: the valid run refs, sorted.
func parseLsRemote(out []byte) ([]Ref, error) {
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
			return nil, err
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

// RemoteRun is one run of a remote as listed without fetching it.
type RemoteRun struct {
	ID  record.RunID
	Tip record.Hash
	// Summary is what the tip commit's message says of the run, with
	// Time the commit's time; HasSummary is false when it could not be
	// read cheaply (the host serves no partial fetch) or says nothing.
	Summary    record.Summary
	Time       time.Time
	HasSummary bool
}

// RemoteListing is the runs of a remote.
type RemoteListing struct {
	Runs []RemoteRun
	// Summaries is true when the tip commits were read (the host serves
	// shallow fetches filtered to commits); false means ids and tips only.
	Summaries bool
}

// RemoteRuns lists the runs of remote without fetching their checkpoints:
// one git ls-remote names each run and its tip; when the host serves
// partial fetches (its protocol v2 fetch capability says "filter"), one
// more fetch of the tip commits alone (--depth=1 --filter=tree:0: no tree,
// no file, no earlier checkpoint) into a scratch repository under
// gitguard's state folder reads the summary each checkpoint commit's
// message carries (record.Summary). The scratch repository is deleted
// before it returns; this repository's refs, objects and config are not
// touched. With summaries false it lists ids and tips only.
func (s *Store) RemoteRuns(ctx context.Context, remote string, summaries bool) (*RemoteListing, error) {
	if err := ValidateRemote(remote); err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp(s.scratchRoot(), "remote-")
	if err != nil {
		return nil, fmt.Errorf("list runs of %s: %w", remote, err)
	}
	defer os.RemoveAll(scratch)
	trace := filepath.Join(scratch, "trace")
	out, err := git.Cmd{Dir: s.repo.WorkTree, Args: []string{"ls-remote", "--refs", "--", remote, RunsPattern},
		Env: []string{"GIT_TRACE_PACKET=" + trace}}.Run(ctx)
	if err != nil {
		return nil, remoteError("list runs of", remote, err)
	}
	refs, err := parseLsRemote(out)
	if err != nil {
		return nil, fmt.Errorf("list runs of %s: %w", remote, err)
	}
	l := &RemoteListing{}
	for _, r := range refs {
		id, _ := ParseRunRef(r.Name)
		l.Runs = append(l.Runs, RemoteRun{ID: id, Tip: r.Hash})
	}
	if !summaries || len(l.Runs) == 0 || !servesFilter(trace) {
		return l, nil
	}
	tips, err := s.fetchTipCommits(ctx, remote, filepath.Join(scratch, "repo.git"))
	if err != nil {
		return nil, err
	}
	l.Summaries = true
	for i, r := range l.Runs {
		c, ok := tips[r.Tip]
		if !ok {
			continue // moved between the listing and the fetch
		}
		if sum, ok := record.ParseSummary(c.msg); ok && sum.Run == r.ID {
			l.Runs[i].Summary, l.Runs[i].Time, l.Runs[i].HasSummary = sum, c.time, true
		}
	}
	return l, nil
}

// scratchRoot is the folder for scratch repositories: gitguard's state
// folder of the common git dir (tmp/), created when missing.
func (s *Store) scratchRoot() string {
	dir := filepath.Join(s.repo.CommonDir, "gitguard", "tmp")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return os.TempDir()
	}
	return dir
}

// servesFilter reports whether a packet trace of a conversation shows the
// server's protocol v2 fetch capability with "filter".
func servesFilter(trace string) bool {
	data, err := os.ReadFile(trace)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		_, caps, ok := strings.Cut(line, "< fetch=")
		if ok && slices.Contains(strings.Fields(caps), "filter") {
			return true
		}
	}
	return false
}

type tipCommit struct {
	msg  string
	time time.Time
}

// fetchTipCommits fetches the tip commits of remote's runs, and nothing
// they reach, into a new bare repository at dir, and returns them by id.
func (s *Store) fetchTipCommits(ctx context.Context, remote, dir string) (map[record.Hash]tipCommit, error) {
	if _, err := git.Run(ctx, "", "init", "-q", "--bare", dir); err != nil {
		return nil, fmt.Errorf("list runs of %s: %w", remote, err)
	}
	// Run from the work tree, so that a relative remote path means what
	// it means here; the scratch repository is named by --git-dir, so a
	// remote name would not resolve: pass its URL.
	url, err := s.repo.Git(ctx, "ls-remote", "--get-url", "--", remote)
	if err != nil {
		return nil, remoteError("list runs of", remote, err)
	}
	gd := "--git-dir=" + dir
	_, err = git.Cmd{Dir: s.repo.WorkTree, Args: []string{gd, "fetch", "--quiet", "--depth=1", "--filter=tree:0",
		"--no-tags", "--no-write-fetch-head", "--no-auto-maintenance", "--no-recurse-submodules", "--refmap=",
		"--", strings.TrimSpace(string(url)), "+" + RunsPattern + ":refs/tips/*"}}.Run(ctx)
	if err != nil {
		return nil, remoteError("list runs of", remote, err)
	}
	out, err := git.Run(ctx, "", gd, "for-each-ref", "--format=%(objectname)%00%(committerdate:unix)%00%(contents)%00", "refs/tips/")
	if err != nil {
		return nil, fmt.Errorf("list runs of %s: %w", remote, err)
	}
	tips := map[record.Hash]tipCommit{}
	for _, rec := range strings.Split(string(out), "\x00\n") {
		f := strings.SplitN(rec, "\x00", 3)
		if len(f) != 3 {
			continue
		}
		h, err := record.ParseHash(f[0])
		if err != nil {
			continue
		}
		sec, _ := strconv.ParseInt(f[1], 10, 64)
		tips[h] = tipCommit{msg: f[2], time: time.Unix(sec, 0).UTC()}
	}
	return tips, nil
}
