package patchstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/fault"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/internal/repo"
	"github.com/gitguard/gitguard/record"
)

// ErrUnknownRun is returned when a run has no ref.
var ErrUnknownRun = errors.New("run not found")

// ErrUnknownCall is returned when a call id is not in the run's ledger.
var ErrUnknownCall = errors.New("call not found")

// ErrUnknownCheckpoint is returned by CheckpointAt when the run has no
// checkpoint with that sequence number.
var ErrUnknownCheckpoint = errors.New("checkpoint not found")

// ErrBusy is returned when a concurrent writer kept winning the ref race.
var ErrBusy = errors.New("run is busy: another gitguard process kept updating it")

// Store reads and writes the runs of one repository. It is safe for
// concurrent use; writers in other processes are handled by compare-and-swap.
type Store struct {
	h     *repo.Handle
	db    *odb.DB
	refs  *gitrefs.Store
	clock func() time.Time
	log   *slog.Logger // warnings of damaged runs (damage.go); nil discards
	// checked are the tips checkTip passed (checkedtips.go).
	checked checkedTips
}

// Options configures Open. The zero value is valid.
type Options struct {
	// Getenv, if set, lets Open find the repository and read its git
	// configuration without starting git when the environment does not
	// steer git elsewhere; nil always asks git.
	Getenv func(string) string
	// Now returns the time stamped on records; nil means time.Now.
	Now func() time.Time
}

// Open returns the Store of the repository containing dir.
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	h, err := repo.Open(ctx, dir, opts.Getenv)
	if err != nil {
		return nil, err
	}
	return open(h, opts), nil
}

// OpenRepo returns the Store of the repository h, from h's discovery of it
// and sharing its object database: for the packages of this module that
// opened the repository already. Closing the Store leaves h open.
func OpenRepo(h *repo.Handle, opts Options) *Store { return open(h.Share(), opts) }

// open returns the Store of h, which the Store then owns.
func open(h *repo.Handle, opts Options) *Store {
	return &Store{h: h, db: h.DB, refs: gitrefs.New(h.Repo), clock: opts.Now}
}

// Close releases the store's share of the object database.
func (s *Store) Close() error { return s.h.Close() }

// Refs returns the store's ref namespace.
func (s *Store) Refs() *gitrefs.Store { return s.refs }

// Time returns the time stamped on records now (UTC, millisecond precision).
func (s *Store) Time() time.Time { return s.now() }

func (s *Store) now() time.Time {
	if s.clock != nil {
		return s.clock().UTC()
	}
	return time.Now().UTC().Truncate(time.Millisecond)
}

// Run is the state of a run as of one checkpoint.
type Run struct {
	ID         record.RunID
	Commit     record.Hash // the checkpoint commit; zero for a run not yet created
	Checkpoint *record.Checkpoint
	// Calls holds every call of the run, or, for a run read with
	// ReadRunCalls or CommitCalls, only the named calls that exist.
	Calls map[record.CallID]*Call
	// Damage is set when the run's newer checkpoints name missing objects
	// and this is its newest intact one (see damage.go).
	Damage *Damage
	tree   record.Hash                   // root tree of Commit
	other  map[record.CallID]record.Hash // version 1 layout: subtrees of the calls left unread, by id
	// Version 2 layout (see fanout.go): the fanned-out calls/ tree and the
	// run index, and whether Calls holds only some of the calls.
	calls, index record.Hash
	legacy       bool // calls/ is the flat version 1 tree
	partial      bool
}

// Exists reports whether the run has at least one checkpoint.
func (r *Run) Exists() bool { return !r.Commit.IsZero() }

// Call is everything recorded about one tool call.
type Call struct {
	record.Call
	tree record.Hash // unchanged subtree to reuse; zero when modified
	// indexed is what the run index holds for the call as read, and
	// indexedFinish the FinishSeq it was filed under, so that a rewrite of
	// the call can take out what no longer applies.
	indexed       map[string]Posting
	indexedFinish int
}

// noteIndexed records what the run index holds for c as it stands.
func (c *Call) noteIndexed() {
	c.indexed, c.indexedFinish = postingsOf(c), c.Ledger.FinishSeq
}

// Touch marks the call modified, so the next commit rewrites its records.
func (c *Call) Touch() { c.tree = record.ZeroHash }

// SortedCalls returns the calls ordered by when they were first recorded.
func (r *Run) SortedCalls() []*Call {
	out := make([]*Call, 0, len(r.Calls))
	for _, c := range r.Calls {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		ti, tj := firstTime(&out[i].Ledger), firstTime(&out[j].Ledger)
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return out[i].Ledger.CallID < out[j].Ledger.CallID
	})
	return out
}

func firstTime(e *record.LedgerEntry) time.Time {
	for _, t := range []*time.Time{e.PlannedAt, e.StartedAt, e.FinishedAt} {
		if t != nil {
			return *t
		}
	}
	return time.Time{}
}

// ReadRun reads the newest checkpoint of run id. It returns ErrUnknownRun
// when the run does not exist and ErrCorrupt for invalid records.
func (s *Store) ReadRun(ctx context.Context, id record.RunID) (*Run, error) {
	return s.readRunIntact(ctx, id, nil)
}

// ReadRunCalls is ReadRun reading the records of the named calls only, so
// that its cost does not grow with the run's length. The other calls are
// carried over unchanged when the result is the tip of a Commit.
func (s *Store) ReadRunCalls(ctx context.Context, id record.RunID, calls ...record.CallID) (*Run, error) {
	return s.readRunIntact(ctx, id, selectCalls(calls))
}

// callFilter names the calls whose records are read; a nil filter picks all.
type callFilter struct{ ids []record.CallID }

func selectCalls(ids []record.CallID) *callFilter { return &callFilter{ids: ids} }

func (f *callFilter) has(id record.CallID) bool { return f == nil || slices.Contains(f.ids, id) }

func (s *Store) readRun(ctx context.Context, id record.RunID, want *callFilter) (*Run, error) {
	tip, err := s.refs.Read(ctx, gitrefs.RunRef(id))
	if err != nil {
		return nil, err
	}
	if tip.IsZero() {
		return nil, fmt.Errorf("run %q: %w", id, ErrUnknownRun)
	}
	r, err := s.readCheckpoint(tip, want)
	if err != nil {
		return nil, err
	}
	if r.ID != id {
		return nil, fmt.Errorf("%w: ref of run %q points at a checkpoint of run %q", record.ErrCorrupt, id, r.ID)
	}
	if err := s.checkTipOnce(r); err != nil {
		return nil, err
	}
	return r, nil
}

// ReadCheckpoint reads the run state recorded in one checkpoint commit.
func (s *Store) ReadCheckpoint(commit record.Hash) (*Run, error) {
	return s.readCheckpoint(commit, nil)
}

func (s *Store) readCheckpoint(commit record.Hash, want *callFilter) (*Run, error) {
	return s.readCheckpointMemo(commit, want, nil)
}

// callMemo holds calls read from earlier checkpoints by their subtree, for
// a reader of every checkpoint of a run (VerifyRun): a call unchanged
// between checkpoints is decoded and checked once. Nil reads every call.
type callMemo map[odb.TreeEntry]*Call

func (s *Store) readCheckpointMemo(commit record.Hash, want *callFilter, memo callMemo) (*Run, error) {
	tree, root, err := s.rootTree(commit)
	if err != nil {
		return nil, err
	}
	r := &Run{Commit: commit, tree: tree, Calls: map[record.CallID]*Call{}}
	var callsTree, indexTree record.Hash
	for _, e := range root {
		switch {
		case e.Name == "checkpoint.json" && e.Mode == record.ModeFile:
			var cp record.Checkpoint
			if err := s.readJSON(e.Hash, &cp, "checkpoint.json"); err != nil {
				return nil, err
			}
			if err := cp.Validate(); err != nil {
				return nil, err
			}
			r.Checkpoint = &cp
		case e.Name == "calls" && e.Mode == record.ModeTree:
			callsTree = e.Hash
		case e.Name == indexName && e.Mode == record.ModeTree:
			indexTree = e.Hash
		}
	}
	if r.Checkpoint == nil {
		return nil, fmt.Errorf("%w: commit %s is not a gitguard checkpoint (no checkpoint.json)", record.ErrCorrupt, commit.Short())
	}
	r.ID = r.Checkpoint.RunID
	if err := r.ID.Validate(); err != nil {
		return nil, fmt.Errorf("%w: checkpoint %s: %w", record.ErrCorrupt, commit.Short(), err)
	}
	r.legacy = !fanned(r.Checkpoint)
	if r.legacy {
		if !callsTree.IsZero() {
			if err := s.readCalls(callsTree, r, want); err != nil {
				return nil, err
			}
		}
		return r, nil
	}
	r.calls, r.index = callsTree, indexTree
	if !callsTree.IsZero() && indexTree.IsZero() {
		return nil, fmt.Errorf("%w: checkpoint %s has calls and no %s/", record.ErrCorrupt, commit.Short(), indexName)
	}
	if want == nil {
		if !callsTree.IsZero() {
			err := s.fanLeaves(callsTree, "calls", func(a, b string, e odb.TreeEntry) error {
				if x, y := fanKey(e.Name); x != a || y != b {
					return fmt.Errorf("%w: calls/%s/%s/%s is filed under the wrong folder", record.ErrCorrupt, a, b, e.Name)
				}
				if c := memo[e]; c != nil {
					id, _ := record.ParseCallID(e.Name) // valid: it was read under this name
					r.Calls[id] = c
					return nil
				}
				if err := s.readCallEntry(e, r); err != nil {
					return err
				}
				if memo != nil && len(memo) < maxCallMemo {
					id, _ := record.ParseCallID(e.Name)
					memo[e] = r.Calls[id]
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		return r, nil
	}
	r.partial = true
	return r, s.loadCalls(r, want.ids)
}

// rootTree reads a checkpoint commit's root tree.
func (s *Store) rootTree(commit record.Hash) (record.Hash, []odb.TreeEntry, error) {
	c, err := s.db.ReadCommit(commit)
	if err != nil {
		return record.ZeroHash, nil, fmt.Errorf("%w: checkpoint %s: %w", record.ErrCorrupt, commit.Short(), err)
	}
	root, err := s.db.ReadTree(c.Tree)
	if err != nil {
		return record.ZeroHash, nil, fmt.Errorf("%w: checkpoint %s: %w", record.ErrCorrupt, commit.Short(), err)
	}
	return c.Tree, root, nil
}

func (s *Store) readJSON(h record.Hash, v any, what string) error {
	_, rc, size, err := s.db.Open(h)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", record.ErrCorrupt, what, err)
	}
	defer rc.Close()
	if size > record.MaxRecordSize {
		return fmt.Errorf("%w: %s is %d bytes, over the %d limit", record.ErrCorrupt, what, size, record.MaxRecordSize)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(rc); err != nil {
		return fmt.Errorf("%w: %s: %w", record.ErrCorrupt, what, err)
	}
	return record.Decode(buf.Bytes(), v, what)
}

func (s *Store) readCalls(tree record.Hash, r *Run, want *callFilter) error {
	entries, err := s.db.ReadTree(tree)
	if err != nil {
		return fmt.Errorf("%w: calls: %w", record.ErrCorrupt, err)
	}
	for _, e := range entries {
		id, err := record.ParseCallID(e.Name)
		if e.Mode != record.ModeTree || err != nil {
			return fmt.Errorf("%w: calls/%s is not a valid call", record.ErrCorrupt, e.Name)
		}
		if !want.has(id) {
			if r.other == nil {
				r.other = map[record.CallID]record.Hash{}
			}
			r.other[id] = e.Hash
			continue
		}
		if err := s.readCallEntry(e, r); err != nil {
			return err
		}
	}
	return nil
}

// readCallEntry reads and checks the records of the call whose subtree is
// e, and adds it to r.Calls.
func (s *Store) readCallEntry(e odb.TreeEntry, r *Run) error {
	id, err := record.ParseCallID(e.Name)
	if e.Mode != record.ModeTree || err != nil {
		return fmt.Errorf("%w: calls/%s is not a valid call", record.ErrCorrupt, e.Name)
	}
	files, err := s.db.ReadTree(e.Hash)
	if err != nil {
		return fmt.Errorf("%w: calls/%s: %w", record.ErrCorrupt, e.Name, err)
	}
	c := &Call{tree: e.Hash}
	seenLedger := false
	for _, f := range files {
		var err error
		switch f.Name {
		case "ledger.json":
			err = s.readJSON(f.Hash, &c.Ledger, "calls/"+e.Name+"/ledger.json")
			seenLedger = err == nil
		case "patches.json":
			err = s.readJSON(f.Hash, &c.Patches, "calls/"+e.Name+"/patches.json")
		case "before.json":
			err = s.readJSON(f.Hash, &c.Before, "calls/"+e.Name+"/before.json")
		case "others.json":
			err = s.readJSON(f.Hash, &c.Others, "calls/"+e.Name+"/others.json")
		}
		if err != nil {
			return err
		}
	}
	if !seenLedger {
		return fmt.Errorf("%w: calls/%s has no ledger.json", record.ErrCorrupt, e.Name)
	}
	if err := c.Ledger.Validate(id); err != nil {
		return err
	}
	if err := record.ValidatePatches(id, c.Patches); err != nil {
		return err
	}
	if err := record.ValidateOthers(id, c.Others); err != nil {
		return err
	}
	for _, b := range c.Before {
		if err := record.ValidatePath(b.Path); err != nil {
			return fmt.Errorf("%w: calls/%s/before.json: %w", record.ErrCorrupt, e.Name, err)
		}
	}
	if err := checkCallLinks(id, c); err != nil {
		return err
	}
	if err := s.objectsExist(id, c); err != nil {
		return err
	}
	c.noteIndexed()
	r.Calls[id] = c
	return nil
}

// objectsExist refuses records that name blobs the repository does not
// have (a forged or half-fetched checkpoint): undo would fail half-way, or
// status would classify against content nobody can show. Content recorded
// by hash only (oversize) and submodule commits are not expected here. One
// existence check per state: a loose-object lstat or a pack-index lookup.
func (s *Store) objectsExist(name record.CallID, c *Call) error {
	has := func(what, path string, st record.State) error {
		if !st.Exists() || st.Mode == record.ModeGitlink || s.db.Has(st.Hash) {
			return nil
		}
		return fmt.Errorf("%w: calls/%s/%s: %s names object %s, which does not exist: %w", record.ErrCorrupt, name, what, path, st.Hash.Short(), odb.ErrMissing)
	}
	for i := range c.Patches {
		p := &c.Patches[i]
		if !p.Oversize {
			if err := has("patches.json", p.Path, p.Before()); err != nil {
				return err
			}
			if err := has("patches.json", p.Path, p.After()); err != nil {
				return err
			}
		}
		if !p.PatchRef.IsZero() && !s.db.Has(p.PatchRef) {
			return fmt.Errorf("%w: calls/%s/patches.json: the patch of %s names object %s, which does not exist: %w", record.ErrCorrupt, name, p.Path, p.PatchRef.Short(), odb.ErrMissing)
		}
	}
	for _, b := range c.Before {
		if !b.Oversize {
			if err := has("before.json", b.Path, b.State); err != nil {
				return err
			}
		}
	}
	return nil
}

// Mutation changes a run and describes the checkpoint to record. It is
// called with a freshly read tip (an empty Run for a new run) and may be
// called again, on a newer tip, if another writer won the race; it must
// derive everything from its argument and must not have other side effects.
type Mutation func(tip *Run) (*record.Checkpoint, error)

const maxAttempts = 12

// Commit records a new checkpoint of run id: it reads the tip, applies
// mutate, writes every object, syncs them to disk, then moves the run ref by
// compare-and-swap. It retries on a lost race and returns ErrBusy when it
// keeps losing. The returned Run is the new tip.
func (s *Store) Commit(ctx context.Context, id record.RunID, mutate Mutation) (*Run, error) {
	return s.commitPacked(ctx, id, nil, false, nil, mutate)
}

// CommitCalls is Commit for a mutation that looks at the named calls only:
// the tip it is given holds those of them that exist (see ReadRunCalls),
// and every other call is carried over unchanged.
func (s *Store) CommitCalls(ctx context.Context, id record.RunID, calls []record.CallID, mutate Mutation) (*Run, error) {
	return s.commitPacked(ctx, id, selectCalls(calls), false, nil, mutate)
}

// commit is Commit; start, when not nil and the run is not recorded yet,
// describes the run's first checkpoint, which goes out with mutate's (see
// CommitAwaitedCallsStarting).
func (s *Store) commit(ctx context.Context, id record.RunID, want *callFilter, start, mutate Mutation) (*Run, error) {
	if err := id.Validate(); err != nil {
		return nil, err
	}
	ref := gitrefs.RunRef(id)
	for attempt := 0; attempt < maxAttempts; attempt++ {
		tip, err := s.readTip(ctx, id, want)
		if err != nil {
			return nil, err
		}
		// chain is what the ref moves past: the run's first checkpoint,
		// when start records it here, and mutate's.
		var chain []*Run
		on := tip
		if start != nil && !tip.Exists() {
			first, err := s.writeStart(tip, want, start)
			if err != nil {
				return nil, err
			}
			chain, on = append(chain, first), first
		}
		cp, err := mutate(on)
		if err != nil {
			return nil, err
		}
		next, err := s.write(on, cp)
		if err != nil {
			return nil, err
		}
		chain = append(chain, next)
		// The objects are checked present (see intact.go) while the ref's
		// lock is taken and flushed, and flushed to disk beside it; the
		// ref moves once all is done. They were all written before the
		// lock is taken: the lock is held for one round of flushes, as it
		// always was. What the move may have raced is checked while the
		// move is flushed.
		checked := make(chan error, 1)
		go func() { checked <- s.checkNamed(tip, chain...) }()
		fault.Point("ref.update.before")
		var named, intact error
		ready := false
		err = s.refs.UpdateAlongside(ctx, ref, next.Commit, tip.Commit, "gitguard: "+cp.Kind+" "+string(cp.ID), gitrefs.Alongside{
			Ready: func() error {
				ready = true
				err := s.syncObjects()
				if named = <-checked; named != nil {
					return named
				}
				return err
			},
			Moved: func() {
				fault.Point("ref.update.after")
				intact = s.keepIntact(ctx, tip, chain...)
			},
		})
		if !ready {
			<-checked // the update stopped before it: nothing outlives commit
		}
		if named != nil {
			return nil, named
		}
		if err == nil {
			return next, intact
		}
		if !errors.Is(err, gitrefs.ErrRefChanged) {
			return nil, err
		}
		// Back off with jitter so that racing writers spread out.
		d := time.Duration(1+rand.IntN(5<<min(attempt, 5))) * time.Millisecond
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(d):
		}
	}
	return nil, fmt.Errorf("record checkpoint of run %q: %w", id, ErrBusy)
}

func (s *Store) syncObjects() error {
	if err := s.db.Sync(); err != nil {
		return fmt.Errorf("sync objects: %w", err)
	}
	return nil
}

func (s *Store) readTip(ctx context.Context, id record.RunID, want *callFilter) (*Run, error) {
	r, err := s.readRun(ctx, id, want)
	if errors.Is(err, ErrUnknownRun) {
		return &Run{ID: id, Calls: map[record.CallID]*Call{}}, nil
	}
	return r, damagedTip(err) // see damage.go
}

// write stores the objects of the checkpoint cp on top of tip and returns
// the new state, without moving the ref.
func (s *Store) write(tip *Run, cp *record.Checkpoint) (*Run, error) {
	next, err := s.collect(tip, cp)
	if err != nil {
		return nil, err
	}
	// Stored now, made durable with the ref's lock (see commit).
	if err := s.db.Flush(); err != nil {
		return nil, err
	}
	return next, nil
}

// writeStart writes the first checkpoint of the run tip, not recorded yet,
// that start describes, and returns the run as a mutation of the next
// checkpoint is given it: as read back with the calls want names. Its
// objects stay collected in the open batch, to be stored with the next
// checkpoint's in one pack.
func (s *Store) writeStart(tip *Run, want *callFilter, start Mutation) (*Run, error) {
	cp, err := start(tip)
	if err != nil {
		return nil, err
	}
	first, err := s.collect(tip, cp)
	if err != nil {
		return nil, err
	}
	first.Calls = map[record.CallID]*Call{}
	for id, c := range tip.Calls {
		if want.has(id) {
			first.Calls[id] = c
		}
	}
	first.partial = want != nil
	return first, nil
}

// collect is write without storing the objects the open batch collected.
func (s *Store) collect(tip *Run, cp *record.Checkpoint) (*Run, error) {
	cp.Version = record.FormatVersion
	cp.RunID = tip.ID
	cp.Prev = tip.Commit
	cp.Seq = 1
	var prevTree record.Hash
	if tip.Exists() {
		cp.Seq = tip.Checkpoint.Seq + 1
		prevTree = tip.Checkpoint.WorktreeTree
	} else if !cp.Head.Commit.IsZero() {
		if hc, err := s.db.ReadCommit(cp.Head.Commit); err == nil {
			prevTree = hc.Tree
		}
	}
	cp.ID = record.NewCheckpointID(cp.Seq)
	if cp.CreatedAt.IsZero() {
		cp.CreatedAt = s.now()
	}
	if tip.legacy && tip.Exists() {
		// The first checkpoint of a version 1 run in version 2 converts it:
		// every call is filed anew and indexed.
		if err := s.loadLegacy(tip); err != nil {
			return nil, err
		}
	}
	s.stampOverlap(tip, cp)
	carrySettings(tip, cp)
	carryView(tip, cp)
	cp.Calls = countCalls(tip)
	if tip.Exists() && cp.Origin == "" {
		cp.Origin = tip.Checkpoint.Origin
	}
	if tip.Exists() && cp.Agent == "" {
		cp.Agent = tip.Checkpoint.Agent
	}
	if cp.WorktreeTree.IsZero() && tip.Exists() {
		cp.WorktreeTree, cp.IndexTree, cp.Head, cp.Partial = tip.Checkpoint.WorktreeTree, tip.Checkpoint.IndexTree, tip.Checkpoint.Head, tip.Checkpoint.Partial
	}
	if cp.WorktreeTree.IsZero() {
		cp.WorktreeTree = odb.EmptyTree
		if _, err := s.db.Write(odb.TypeTree, nil); err != nil {
			return nil, err
		}
	}
	if cp.IndexTree.IsZero() {
		cp.IndexTree = odb.EmptyTree
	}
	// Many new objects (a run's first checkpoint: the work tree's new
	// blobs and trees) are stored while the changes are counted, which
	// reads HEAD's trees for the first.
	stored := s.db.FlushBehind()
	changes, err := s.db.DiffTrees(prevTree, cp.WorktreeTree)
	if serr := stored(); serr != nil {
		return nil, serr
	}
	if err != nil {
		return nil, fmt.Errorf("count changes: %w", err)
	}
	cp.ChangedPaths = len(changes)

	callsTree, indexTree, err := s.writeCalls(tip)
	if err != nil {
		return nil, err
	}
	cpBlob, err := s.writeJSON(cp)
	if err != nil {
		return nil, err
	}
	root := []odb.TreeEntry{
		{Name: "checkpoint.json", Mode: record.ModeFile, Hash: cpBlob},
		{Name: "index", Mode: record.ModeTree, Hash: cp.IndexTree},
		{Name: "worktree", Mode: record.ModeTree, Hash: cp.WorktreeTree},
	}
	if !callsTree.IsZero() {
		root = append(root, odb.TreeEntry{Name: "calls", Mode: record.ModeTree, Hash: callsTree})
	}
	if !indexTree.IsZero() {
		root = append(root, odb.TreeEntry{Name: indexName, Mode: record.ModeTree, Hash: indexTree})
	}
	viewTree, err := s.writeView(cp)
	if err != nil {
		return nil, err
	}
	if !viewTree.IsZero() {
		root = append(root, odb.TreeEntry{Name: viewName, Mode: record.ModeTree, Hash: viewTree})
	}
	odb.SortTree(root)
	rootTree, err := s.db.WriteTree(root)
	if err != nil {
		return nil, err
	}
	var parents []record.Hash
	if tip.Exists() {
		parents = append(parents, tip.Commit)
	}
	if h := cp.Head.Commit; !h.IsZero() && (!tip.Exists() || tip.Checkpoint.Head.Commit != h) {
		parents = append(parents, h)
	}
	who := odb.Signature{Name: "gitguard", Email: "gitguard@localhost", When: cp.CreatedAt}
	calls := -1
	if cp.Calls != nil {
		calls = *cp.Calls
	}
	msg := record.CheckpointMessage(cp, calls, cp.Origin)
	commit, err := s.db.Write(odb.TypeCommit, odb.EncodeCommit(&odb.Commit{
		Tree: rootTree, Parents: parents, Author: who, Committer: who, Message: msg,
	}))
	if err != nil {
		return nil, err
	}
	return &Run{ID: tip.ID, Commit: commit, Checkpoint: cp, Calls: tip.Calls, tree: rootTree,
		calls: callsTree, index: indexTree, partial: tip.partial}, nil
}

// countCalls returns how many calls run r has, counting those its mutation
// added: all of them when r holds every call, else the count its previous
// checkpoint recorded plus the new ones (a call read from the run has its
// index postings noted, a new one not); nil when that is not known.
func countCalls(r *Run) *int {
	n := 0
	switch {
	case !r.partial:
		n = len(r.Calls)
		for id := range r.other {
			if r.Calls[id] == nil {
				n++
			}
		}
	case r.Exists() && r.Checkpoint.Calls != nil:
		n = *r.Checkpoint.Calls
		for _, c := range r.Calls {
			if c.indexed == nil {
				n++
			}
		}
	default:
		return nil
	}
	return &n
}

func (s *Store) writeJSON(v any) (record.Hash, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return record.ZeroHash, err
	}
	return s.db.Write(odb.TypeBlob, append(data, '\n'))
}

// writeCalls files the calls of r that changed (all of them when r is a
// converted version 1 run) under the fanned-out calls tree and brings the
// run index up to date with them.
func (s *Store) writeCalls(r *Run) (calls, index record.Hash, err error) {
	base, baseIndex := r.calls, r.index
	if r.legacy {
		base, baseIndex = record.ZeroHash, record.ZeroHash
	}
	var states []record.FileState
	var changed []*Call
	for id, c := range r.Calls {
		if c.tree.IsZero() && c.indexed == nil && r.partial {
			// A mutation added a call it was not given: it would replace
			// the recorded one unseen.
			if _, found, err := s.fanLookup(base, string(id), "calls"); err != nil || found {
				return record.ZeroHash, record.ZeroHash, errors.Join(fmt.Errorf("write call %s: its records were not read", id), err)
			}
		}
		if c.tree.IsZero() {
			h, err := s.writeCall(c)
			if err != nil {
				return record.ZeroHash, record.ZeroHash, fmt.Errorf("write call %s: %w", id, err)
			}
			c.tree = h
		} else if !r.legacy {
			continue
		}
		changed = append(changed, c)
		states = append(states, record.FileState{Path: fanPath(string(id)), Mode: record.ModeTree, Hash: c.tree})
	}
	if len(states) == 0 {
		return base, baseIndex, nil
	}
	if calls, err = s.db.Overlay(base, states); err != nil {
		return record.ZeroHash, record.ZeroHash, fmt.Errorf("write calls: %w", err)
	}
	if rebuild, err := s.needsRebuild(r, baseIndex, changed); err != nil {
		return record.ZeroHash, record.ZeroHash, err
	} else if rebuild {
		// Built anew from every call: reads the calls not read yet once.
		if err := s.loadAll(r); err != nil {
			return record.ZeroHash, record.ZeroHash, err
		}
		baseIndex, changed = record.ZeroHash, slices.Collect(maps.Values(r.Calls))
	}
	if index, err = s.updateIndex(baseIndex, changed); err != nil {
		return record.ZeroHash, record.ZeroHash, fmt.Errorf("write run index: %w", err)
	}
	for _, c := range changed {
		c.noteIndexed()
	}
	r.legacy, r.other = false, nil
	return calls, index, nil
}

// loadLegacy reads every call of a version 1 run not read yet, for the
// conversion to version 2.
func (s *Store) loadLegacy(r *Run) error {
	for id, h := range r.other {
		if r.Calls[id] != nil {
			// A mutation added a call it was not given: it would replace
			// the recorded one unseen.
			return fmt.Errorf("write call %s: its records were not read", id)
		}
		if err := s.readCallEntry(odb.TreeEntry{Name: string(id), Mode: record.ModeTree, Hash: h}, r); err != nil {
			return err
		}
	}
	r.other = nil
	return nil
}

func (s *Store) writeCall(c *Call) (record.Hash, error) {
	c.Ledger.Version = record.FormatVersion
	var files []odb.TreeEntry
	add := func(name string, v any) error {
		h, err := s.writeJSON(v)
		if err == nil {
			files = append(files, odb.TreeEntry{Name: name, Mode: record.ModeFile, Hash: h})
		}
		return err
	}
	if err := add("ledger.json", &c.Ledger); err != nil {
		return record.ZeroHash, err
	}
	if len(c.Patches) > 0 {
		if err := add("patches.json", c.Patches); err != nil {
			return record.ZeroHash, err
		}
	}
	if len(c.Before) > 0 {
		if err := add("before.json", c.Before); err != nil {
			return record.ZeroHash, err
		}
	}
	if len(c.Others) > 0 {
		if err := add("others.json", c.Others); err != nil {
			return record.ZeroHash, err
		}
	}
	// Keep every blob the records name reachable from this commit.
	keep := map[record.Hash]bool{}
	blob := func(st record.State) {
		if st.Exists() && st.Mode != record.ModeGitlink && s.db.Has(st.Hash) {
			keep[st.Hash] = true
		}
	}
	for i := range c.Patches {
		p := &c.Patches[i]
		blob(p.Before())
		blob(p.After())
		if !p.PatchRef.IsZero() {
			keep[p.PatchRef] = true
		}
	}
	for _, b := range c.Before {
		blob(b.State)
	}
	for i := range c.Others {
		blob(c.Others[i].Before())
		blob(c.Others[i].After())
	}
	if len(keep) > 0 {
		var list []odb.TreeEntry
		for h := range keep {
			list = append(list, odb.TreeEntry{Name: h.String(), Mode: record.ModeFile, Hash: h})
		}
		odb.SortTree(list)
		h, err := s.db.WriteTree(list)
		if err != nil {
			return record.ZeroHash, err
		}
		files = append(files, odb.TreeEntry{Name: "blobs", Mode: record.ModeTree, Hash: h})
	}
	odb.SortTree(files)
	return s.db.WriteTree(files)
}

// Rescan makes the store see packs written since it was opened (by a git
// fetch, say), which it would otherwise find only on a miss.
func (s *Store) Rescan() { s.db.Rescan() }
