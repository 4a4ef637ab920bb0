package gitrefs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gitguard/gitguard/record"
)

// PushUpdate is one line of what git tells a pre-push hook: a local ref and
// commit to be pushed to a remote ref, which is at Remote now (zero if new
// there; Local is zero for a deletion).
type PushUpdate struct {
	LocalRef  string
	Local     record.Hash
	RemoteRef string
	Remote    record.Hash
}

// ParsePushUpdates reads a pre-push hook's standard input: lines of
// "<local ref> <local oid> <remote ref> <remote oid>".
func ParsePushUpdates(data []byte) ([]PushUpdate, error) {
	var out []PushUpdate
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("pre-push input %q: want <local ref> <local oid> <remote ref> <remote oid>", sc.Text())
		}
		local, err := record.ParseHash(f[1])
		if err != nil {
			return nil, fmt.Errorf("pre-push input %q: %w", sc.Text(), err)
		}
		remote, err := record.ParseHash(f[3])
		if err != nil {
			return nil, fmt.Errorf("pre-push input %q: %w", sc.Text(), err)
		}
		out = append(out, PushUpdate{LocalRef: f[0], Local: local, RemoteRef: f[2], Remote: remote})
	}
	return out, sc.Err()
}

// PushedCommits returns the commits a push of updates sends (reachable from
// the local commits, not from the remote ones this repository has) and the
// boundary commits they grow from, with their committer times. Updates of
// refs in gitguard's namespace and deletions are left out.
func (s *Store) PushedCommits(ctx context.Context, updates []PushUpdate) (sent, boundary map[record.Hash]time.Time, err error) {
	sent, boundary = map[record.Hash]time.Time{}, map[record.Hash]time.Time{}
	args := []string{"rev-list", "--boundary", "--timestamp"}
	have := false
	for _, u := range updates {
		if u.Local.IsZero() || strings.HasPrefix(u.RemoteRef, Namespace) {
			continue
		}
		args = append(args, u.Local.String())
		have = true
	}
	if !have {
		return sent, boundary, nil
	}
	args = append(args, "--not")
	for _, u := range updates {
		if u.Remote.IsZero() {
			continue
		}
		// The remote's commit may not be here (not fetched): then nothing
		// local is known to be on the remote through it.
		if _, err := s.repo.Git(ctx, "cat-file", "-e", u.Remote.String()+"^{commit}"); err == nil {
			args = append(args, u.Remote.String())
		}
	}
	out, err := s.repo.Git(ctx, append(args, "--")...)
	if err != nil {
		return nil, nil, fmt.Errorf("list the commits being pushed: %w", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		ts, id, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		b := strings.HasPrefix(id, "-")
		h, err := record.ParseHash(strings.TrimPrefix(id, "-"))
		if err != nil {
			continue
		}
		sec, _ := strconv.ParseInt(ts, 10, 64)
		if b {
			boundary[h] = time.Unix(sec, 0)
		} else {
			sent[h] = time.Unix(sec, 0)
		}
	}
	return sent, boundary, nil
}
