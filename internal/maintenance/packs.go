package maintenance

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/record"
)

// pruneGrace is how recent a pack of gitguard's may be and still be
// rewritten by prune: a writer stores its checkpoint's pack just before it
// moves its run's ref, and its objects are unreachable in between.
const pruneGrace = time.Minute

// freePruned rewrites the packs gitguard wrote without the objects nothing
// reaches any more — no ref (other runs included), no reflog, no index —
// and returns the bytes freed. The user's objects are never in question:
// only packs on gitguard's own list that no one freshened since (see
// odb.DropUnreachable) are rewritten, so an object git wrote again into
// one of them, and everything git or the user stored elsewhere, keeps
// git's own grace period.
func (m *Maintainer) freePruned(ctx context.Context) (int64, error) {
	start := time.Now()
	out, err := m.Repo.Git(ctx, "rev-list", "--objects", "--all", "--reflog", "--indexed-objects")
	if err != nil {
		return 0, fmt.Errorf("list reachable objects: %w", err)
	}
	reachable := map[git.Hash]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) < 40 {
			continue
		}
		h, err := record.ParseHash(string(line[:40]))
		if err != nil {
			return 0, fmt.Errorf("list reachable objects: %w", err)
		}
		reachable[h] = true
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("list reachable objects: %w", err)
	}
	return m.DB.DropUnreachable(func(h git.Hash) bool { return reachable[h] }, start.Add(-pruneGrace))
}
