package attribution

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// peerCall is a call of any run of this work tree whose window overlaps
// another call's.
type peerCall struct {
	ref record.CallRef
	c   *patchstore.Call
}

// started and finished bound the window in which the peer's tool ran: it
// ran after its start was recorded and ended before its finish was.
func (p peerCall) started() time.Time { return *p.c.Ledger.StartedAt }

func (p peerCall) open() bool { return p.c.Ledger.FinishedAt == nil }

func (p peerCall) finished() time.Time {
	if p.open() {
		return time.Time{}
	}
	return *p.c.Ledger.FinishedAt
}

// wholeWorkspace reports whether the call captured the whole workspace (a
// shell command): it may have changed any path.
func (p peerCall) wholeWorkspace() bool {
	return len(p.c.Ledger.Paths) == 0 && !p.c.Ledger.BeforeTree.IsZero()
}

// maxOpenAge bounds how long a started call counts as running: past it, the
// process recording it is taken to have died without a word.
const maxOpenAge = 24 * time.Hour

// runTips reads the newest record of every run that may have been active
// since from, leaving out (with a warning) the runs whose record cannot be
// read: a damaged run must not stop other runs' calls from being recorded.
// A run finished before from is known by its tip commit alone, so a
// repository full of old finished runs costs one small read per run.
func (a *Attributor) runTips(ctx context.Context, from time.Time) ([]patchstore.RunInfo, error) {
	refs, err := a.Refs.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []patchstore.RunInfo
	for _, ref := range refs {
		id, ok := gitrefs.ParseRunRef(ref.Name)
		if !ok {
			continue
		}
		cp, err := tipRecordOf(a.Store, id, ref.Hash, from)
		if err != nil {
			a.Log.Warn("calls of another run not compared: its records cannot be read", "run", id, "err", err)
			continue
		}
		if cp == nil {
			continue // finished before from
		}
		out = append(out, patchstore.RunInfo{ID: id, Tip: ref.Hash, Checkpoints: cp.Seq, Last: cp, Finished: cp.RunFinished})
	}
	return out, nil
}

// A commit never changes what it says, and a process that records many
// events (the watch daemon) reads every unfinished run's tip at each
// whole-workspace call: tips remembers what the tips it read say, the
// newest tip read of each run only (a run's older tips are not read
// again once its ref moved), so that a daemon serving a work tree all day
// holds one record per run rather than one per event.
var tips = struct {
	sync.Mutex
	m map[record.RunID]tipRecord
}{m: map[record.RunID]tipRecord{}}

// maxTips bounds tips; past it, the memory starts over.
const maxTips = 1024

// tipRecord is what a run's tip commit says.
type tipRecord struct {
	commit     record.Hash
	finishedAt time.Time          // a run's finish: when, from the commit alone
	cp         *record.Checkpoint // the record, once read; shared, read only
}

// tipRecordOf returns the record of commit, the tip of run id, nil when it
// is a run's finish recorded before from, which its commit alone tells.
func tipRecordOf(store *patchstore.Store, id record.RunID, commit record.Hash, from time.Time) (*record.Checkpoint, error) {
	tips.Lock()
	t, known := tips.m[id]
	tips.Unlock()
	if known = known && t.commit == commit; !known {
		t = tipRecord{commit: commit, finishedAt: store.FinishedAt(commit)}
	}
	if !t.finishedAt.IsZero() && !t.finishedAt.Add(time.Second).After(from) {
		if !known {
			remember(id, t)
		}
		return nil, nil
	}
	if t.cp == nil {
		cp, err := store.ReadRecord(commit)
		if err != nil {
			return nil, err
		}
		t.cp = cp
		remember(id, t)
	}
	return t.cp, nil
}

func remember(id record.RunID, t tipRecord) {
	tips.Lock()
	defer tips.Unlock()
	if _, ok := tips.m[id]; !ok && len(tips.m) >= maxTips {
		clear(tips.m)
	}
	tips.m[id] = t
}

// peerCalls returns the calls of every run of this work tree, except self,
// that were open at some moment since from: started before now and not
// finished before from. It reads, per run, the tip's record; for runs with
// checkpoints since from, the records back to from; and then only the calls
// those name or list as open. Runs of other worktrees of the repository
// are left out.
func (a *Attributor) peerCalls(ctx context.Context, self record.CallRef, from time.Time) ([]peerCall, error) {
	infos, err := a.runTips(ctx, from)
	if err != nil {
		return nil, err
	}
	wt := a.Store.WorktreeName()
	now := a.Store.Time()
	var out []peerCall
	for _, info := range infos {
		if info.Last.Worktree != wt || (info.Finished && info.Last.CreatedAt.Before(from)) {
			continue
		}
		ids, all, err := a.windowCallIDs(ctx, info, from)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			a.Log.Warn("calls of another run not compared: its records cannot be read", "run", info.ID, "err", err)
			continue
		}
		if info.ID == self.Run && slices.Contains(ids, self.Call) {
			// self is no peer of its own: a session's only call in its
			// window reads no records. (ids may be a shared tip's list.)
			ids = slices.DeleteFunc(slices.Clone(ids), func(id record.CallID) bool { return id == self.Call })
		}
		if !all && len(ids) == 0 {
			continue
		}
		var run *patchstore.Run
		if all {
			run, err = a.Store.ReadRun(ctx, info.ID)
		} else {
			run, err = a.Store.ReadRunCalls(ctx, info.ID, ids...)
		}
		if errors.Is(err, patchstore.ErrUnknownRun) {
			continue // pruned meanwhile
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			a.Log.Warn("calls of another run not compared: its records cannot be read", "run", info.ID, "err", err)
			continue
		}
		for id, c := range run.Calls {
			ref := record.CallRef{Run: run.ID, Call: id}
			l := &c.Ledger
			if ref == self || l.StartedAt == nil || (l.FinishedAt != nil && l.FinishedAt.Before(from)) {
				continue
			}
			switch l.Status {
			case record.StatusPlanned, record.StatusApproved, record.StatusDenied:
				continue
			case record.StatusStarted:
				// A call still started in a finished run, or for longer than
				// maxOpenAge, was abandoned by a process that died.
				if info.Finished || now.Sub(*l.StartedAt) > maxOpenAge {
					continue
				}
			case record.StatusUncertain:
				if l.FinishedAt == nil {
					continue // its process was found gone; it recorded no change
				}
			}
			out = append(out, peerCall{ref: ref, c: c})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		fi, fj := out[i].finished(), out[j].finished()
		if out[i].open() != out[j].open() {
			return !out[i].open()
		}
		if !fi.Equal(fj) {
			return fi.Before(fj)
		}
		return out[i].ref.String() < out[j].ref.String()
	})
	return out, nil
}

// windowCallIDs names the calls of a run that may overlap the window from
// now back to from: those open at its start and those with a checkpoint
// inside it. all says the records cannot tell, and every call is read.
func (a *Attributor) windowCallIDs(ctx context.Context, info patchstore.RunInfo, from time.Time) ([]record.CallID, bool, error) {
	tip := info.Last
	if tip.CreatedAt.Before(from) {
		// Nothing happened in the run since: only calls still open.
		return tip.Open, !tip.OpenKnown, nil
	}
	hist, err := a.Store.HistorySince(ctx, info.ID, from)
	if errors.Is(err, patchstore.ErrUnknownRun) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	seen := map[record.CallID]bool{}
	var ids []record.CallID
	add := func(id record.CallID) {
		if id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, en := range hist {
		cp := en.Checkpoint
		add(cp.CallID)
		if cp.CreatedAt.Before(from) || en.Checkpoint.Prev.IsZero() {
			if !cp.OpenKnown {
				return nil, true, nil
			}
			for _, id := range cp.Open {
				add(id)
			}
		}
	}
	return ids, false, nil
}

// OpenElsewhere returns the calls of runs other than run, in this work
// tree, that are started and not finished right now, oldest start first.
// It reads each run's newest record and the open calls it lists.
func (a *Attributor) OpenElsewhere(ctx context.Context, run record.RunID) ([]record.CallRef, error) {
	peers, err := a.peerCalls(ctx, record.CallRef{Run: run}, a.Store.Time())
	if err != nil {
		return nil, err
	}
	sort.SliceStable(peers, func(i, j int) bool { return peers[i].started().Before(peers[j].started()) })
	var out []record.CallRef
	for _, q := range peers {
		if q.open() && q.ref.Run != run && q.c.Ledger.Status == record.StatusStarted {
			out = append(out, q.ref)
		}
	}
	return out, nil
}
