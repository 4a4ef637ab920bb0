package patchstore

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// The run index (runindex/ in a version 2 checkpoint tree) answers what
// status, undo, the ledger and resume ask of a run without reading every
// call: which calls touched a path, and the calls in the order they
// finished. Each checkpoint brings it up to date with the calls it rewrites
// (the writer's mutation starts from the tip, so racing writers each
// rebuild it from the tip they won on), and it is fanned out so that an
// update rewrites a few small objects:
//
//	runindex/paths/<x>/<y>    {"version":2,"paths":[{"path":P,"calls":[Posting...]}]}
//	runindex/heads.json       {"version":2,"calls":[CALL...]}: calls during which HEAD moved
//	runindex/notes.json       {"version":2,"calls":[CALL...]}: calls whose entry lists
//	                          skipped paths or view changes (see noted)
//	runindex/order/...        every call by when it finished (runorder.go)
//
// where x and y are the first two hex digits of the SHA-1 of the path.
// Postings of a path are ordered oldest first as the calls are (by finish,
// then start checkpoint, then id), and are only those readers ask for (see
// trimPostings), so that a path's record does not grow with the calls that
// touched it. Ledger entries are read from the calls' own ledger.json: an
// index copy rewrote a record of about calls/256 entries at every start
// and finish, so the disk a call took grew with the run.
const indexName = "runindex"

// Posting says that a call names a path, and how.
type Posting struct {
	Call   record.CallID `json:"call"`
	Tool   string        `json:"tool,omitempty"`
	Start  int           `json:"start,omitempty"`  // the call's StartSeq
	Finish int           `json:"finish,omitempty"` // the call's FinishSeq; 0 while open
	Patch  bool          `json:"patch,omitempty"`  // the call has a patch of the path
	Listed bool          `json:"listed,omitempty"` // the path is among the call's declared paths
	Other  bool          `json:"other,omitempty"`  // the call saw another call change the path (others.json)
	Undone bool          `json:"undone,omitempty"` // the call is undone (UndoneBy set)
}

// Order is the key calls are ordered by, oldest first: the checkpoint that
// finished them (open calls last), then the one that started them.
func (p Posting) Order() (int, int) {
	f := p.Finish
	if f == 0 {
		f = math.MaxInt
	}
	return f, p.Start
}

// ComparePostings orders postings oldest first (see Order), then by call id.
func ComparePostings(a, b Posting) int {
	fa, sa := a.Order()
	fb, sb := b.Order()
	if c := cmp.Compare(fa, fb); c != 0 {
		return c
	}
	if c := cmp.Compare(sa, sb); c != 0 {
		return c
	}
	return cmp.Compare(a.Call, b.Call)
}

// postingsOf lists, per path, what the run index holds for c.
func postingsOf(c *Call) map[string]Posting {
	l := &c.Ledger
	base := Posting{Call: l.CallID, Tool: l.ToolName, Start: l.StartSeq, Finish: l.FinishSeq, Undone: l.UndoneBy != ""}
	out := map[string]Posting{}
	mark := func(path string, set func(*Posting)) {
		p, ok := out[path]
		if !ok {
			p = base
		}
		set(&p)
		out[path] = p
	}
	for i := range c.Patches {
		mark(c.Patches[i].Path, func(p *Posting) { p.Patch = true })
	}
	for _, path := range l.Paths {
		mark(path, func(p *Posting) { p.Listed = true })
	}
	for i := range c.Others {
		mark(c.Others[i].Path, func(p *Posting) { p.Other = true })
	}
	return out
}

// trimPostings returns what the index keeps of a path's postings (oldest
// first): every open call's, and of the finished calls, per tool, the
// newest that patched the path and the newest that declared it, and every
// one that saw other calls change it. That is what status asks (the newest
// patch by an agent tool and by undo, the newest undo that planned the
// path, every call that saw others) and what deciding whether a path was
// patched needs. A new or finished posting is always the newest, so
// updateIndex keeps this up to date from the kept postings alone, except
// when a kept finished posting loses what it was kept for (see
// needsRebuild).
func trimPostings(list []Posting) []Posting {
	type pick struct {
		tool  string
		patch bool
	}
	newest := map[pick]int{}
	for i, p := range list {
		if p.Finish == 0 {
			continue
		}
		if p.Patch {
			newest[pick{p.Tool, true}] = i
		}
		if p.Listed {
			newest[pick{p.Tool, false}] = i
		}
	}
	keep := make([]bool, len(list))
	for _, i := range newest {
		keep[i] = true
	}
	out := list[:0:0]
	for i, p := range list {
		if keep[i] || p.Finish == 0 || p.Other {
			out = append(out, p)
		}
	}
	return out
}

// currentLayout reports whether r's index has the parts this version
// writes: the order part, and no ledger part (an index copy of every
// ledger entry, which earlier versions kept).
func (s *Store) currentLayout(r *Run) (bool, error) {
	top, err := s.db.ReadTree(r.index)
	if err != nil {
		return false, fmt.Errorf("%w: %s: %w", record.ErrCorrupt, indexName, err)
	}
	return findEntry(top, orderPart) >= 0 && findEntry(top, "ledger") < 0, nil
}

// needsRebuild reports whether a call's rewrite takes from the index a
// finished posting it may have kept in place of older ones (a late finish
// replacing what resume attributed to a killed call), or the index has an
// earlier layout: then the index is built anew from every call.
func (s *Store) needsRebuild(r *Run, base record.Hash, changed []*Call) (bool, error) {
	if base.IsZero() {
		return false, nil
	}
	if current, err := s.currentLayout(r); err != nil || !current {
		return err == nil, err
	}
	for _, c := range changed {
		now := postingsOf(c)
		for path, o := range c.indexed {
			if o.Finish == 0 {
				continue
			}
			n, ok := now[path]
			lost := !ok || n.Tool != o.Tool || o.Patch && !n.Patch || o.Listed && !n.Listed || o.Other && !n.Other
			if nf, _ := n.Order(); lost || nf < o.Finish {
				return true, nil
			}
		}
	}
	return false, nil
}

type pathBucket struct {
	Version int         `json:"version"`
	Paths   []pathEntry `json:"paths"`
}

type pathEntry struct {
	Path  string    `json:"path"`
	Calls []Posting `json:"calls"`
}

type callList struct {
	Version int             `json:"version"`
	Calls   []record.CallID `json:"calls"`
}

// updateIndex returns the run index base brought up to date with the
// changed calls.
func (s *Store) updateIndex(base record.Hash, changed []*Call) (record.Hash, error) {
	order := &orderSegments{s: s, base: base, segs: map[string]map[record.CallID]Posting{}, dirty: map[string]bool{}}
	paths := map[string]map[string][]Posting{} // bucket -> path -> postings
	bucketOf := func(key string) string { a, b := fanKey(key); return a + "/" + b }
	loadPaths := func(bucket string) (map[string][]Posting, error) {
		if m, ok := paths[bucket]; ok {
			return m, nil
		}
		m := map[string][]Posting{}
		var pb pathBucket
		if ok, err := s.readIndexBlob(base, "paths/"+bucket, &pb); err != nil {
			return nil, err
		} else if ok {
			for _, e := range pb.Paths {
				m[e.Path] = e.Calls
			}
		}
		paths[bucket] = m
		return m, nil
	}
	var heads, notes map[record.CallID]bool
	for _, c := range changed {
		id := c.Ledger.CallID
		now := postingsOf(c)
		touched := map[string]bool{}
		for p := range c.indexed {
			touched[p] = true
		}
		for p := range now {
			touched[p] = true
		}
		for p := range touched {
			m, err := loadPaths(bucketOf(p))
			if err != nil {
				return record.ZeroHash, err
			}
			list := slices.DeleteFunc(m[p], func(x Posting) bool { return x.Call == id })
			if np, ok := now[p]; ok {
				list = append(list, np)
				slices.SortFunc(list, ComparePostings)
			}
			m[p] = trimPostings(list)
		}
		if err := order.move(c, !base.IsZero() && c.indexed != nil); err != nil {
			return record.ZeroHash, err
		}
		moved := c.Ledger.Head.Moved()
		if heads == nil && (moved || c.indexed != nil) {
			var hl callList
			if _, err := s.readIndexBlob(base, "heads.json", &hl); err != nil {
				return record.ZeroHash, err
			}
			heads = map[record.CallID]bool{}
			for _, h := range hl.Calls {
				heads[h] = true
			}
		}
		if heads != nil {
			if moved {
				heads[id] = true
			} else {
				delete(heads, id)
			}
		}
		if notes == nil && (noted(c) || c.indexed != nil) {
			var nl callList
			if _, err := s.readIndexBlob(base, notesFile, &nl); err != nil {
				return record.ZeroHash, err
			}
			notes = map[record.CallID]bool{}
			for _, n := range nl.Calls {
				notes[n] = true
			}
		}
		if notes != nil {
			if noted(c) {
				notes[id] = true
			} else {
				delete(notes, id)
			}
		}
	}
	var states []record.FileState
	put := func(path string, v any, empty bool) error {
		st := record.FileState{Path: path}
		if !empty {
			// Compact: the index is read by gitguard, and rewritten often.
			data, err := json.Marshal(v)
			if err != nil {
				return err
			}
			h, err := s.db.Write(odb.TypeBlob, append(data, '\n'))
			if err != nil {
				return err
			}
			st.Mode, st.Hash = record.ModeFile, h
		}
		states = append(states, st)
		return nil
	}
	for bucket, m := range paths {
		pb := pathBucket{Version: record.FormatVersion}
		for p, list := range m {
			if len(list) > 0 {
				pb.Paths = append(pb.Paths, pathEntry{Path: p, Calls: list})
			}
		}
		slices.SortFunc(pb.Paths, func(a, b pathEntry) int { return cmp.Compare(a.Path, b.Path) })
		if err := put("paths/"+bucket, &pb, len(pb.Paths) == 0); err != nil {
			return record.ZeroHash, err
		}
	}
	if err := order.states(put); err != nil {
		return record.ZeroHash, err
	}
	if heads != nil {
		hl := callList{Version: record.FormatVersion}
		for id := range heads {
			hl.Calls = append(hl.Calls, id)
		}
		slices.Sort(hl.Calls)
		if err := put("heads.json", &hl, len(hl.Calls) == 0); err != nil {
			return record.ZeroHash, err
		}
	}
	if notes != nil {
		nl := callList{Version: record.FormatVersion}
		for id := range notes {
			nl.Calls = append(nl.Calls, id)
		}
		slices.Sort(nl.Calls)
		if err := put(notesFile, &nl, len(nl.Calls) == 0); err != nil {
			return record.ZeroHash, err
		}
	}
	return s.db.Overlay(base, states)
}

// readIndexBlob decodes the index record at path below the index tree;
// false when there is none.
func (s *Store) readIndexBlob(index record.Hash, path string, v any) (bool, error) {
	if index.IsZero() {
		return false, nil
	}
	st, err := s.db.Lookup(index, path)
	if err != nil {
		return false, fmt.Errorf("%w: %s/%s: %w", record.ErrCorrupt, indexName, path, err)
	}
	if !st.Exists() {
		return false, nil
	}
	if st.Mode != record.ModeFile {
		return false, fmt.Errorf("%w: %s/%s is not a file", record.ErrCorrupt, indexName, path)
	}
	return true, s.readJSON(st.Hash, v, indexName+"/"+path)
}

// indexBlobs calls visit with each record of a fanned-out part of the
// index (paths or ledger), and the bucket it is filed under.
func (s *Store) indexBlobs(r *Run, part string, visit func(bucket string, h record.Hash) error) error {
	if r.index.IsZero() {
		return nil
	}
	st, err := s.db.Lookup(r.index, part)
	if err != nil {
		return fmt.Errorf("%w: %s/%s: %w", record.ErrCorrupt, indexName, part, err)
	}
	// Lookup reports folders as absent; read the folder itself.
	entries, err := s.db.ReadTree(r.index)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", record.ErrCorrupt, indexName, err)
	}
	i := findEntry(entries, part)
	if i < 0 || st.Exists() {
		return nil
	}
	top, err := s.db.ReadTree(entries[i].Hash)
	if err != nil {
		return fmt.Errorf("%w: %s/%s: %w", record.ErrCorrupt, indexName, part, err)
	}
	for _, t := range top {
		if t.Mode != record.ModeTree || !isNibble(t.Name) {
			return fmt.Errorf("%w: %s/%s/%s is not a fan-out folder", record.ErrCorrupt, indexName, part, t.Name)
		}
		leaves, err := s.db.ReadTree(t.Hash)
		if err != nil {
			return fmt.Errorf("%w: %s/%s/%s: %w", record.ErrCorrupt, indexName, part, t.Name, err)
		}
		for _, l := range leaves {
			if l.Mode != record.ModeFile || !isNibble(l.Name) {
				return fmt.Errorf("%w: %s/%s/%s/%s is not an index record", record.ErrCorrupt, indexName, part, t.Name, l.Name)
			}
			if err := visit(t.Name+"/"+l.Name, l.Hash); err != nil {
				return err
			}
		}
	}
	return nil
}

// PathIndex returns, for every path a call of r patched, declared or saw
// changed by others, the postings of those calls, oldest first. Its cost
// grows with the paths and the postings, not with the other calls of the
// run. For a version 1 run (not converted yet) it reads every call.
func (s *Store) PathIndex(r *Run) (map[string][]Posting, error) {
	if r.legacy || !r.Exists() {
		return s.scanPostings(r)
	}
	order, err := s.orderTree(r)
	if err != nil {
		return nil, err
	}
	// An index written before postings were trimmed lists them all.
	trim := order.IsZero()
	out := map[string][]Posting{}
	err = s.indexBlobs(r, "paths", func(bucket string, h record.Hash) error {
		var pb pathBucket
		what := indexName + "/paths/" + bucket
		if err := s.readJSON(h, &pb, what); err != nil {
			return err
		}
		if !record.SupportedVersion(pb.Version) {
			return fmt.Errorf("%w: %s: %w: version %d", record.ErrCorrupt, what, record.ErrFormatVersion, pb.Version)
		}
		for _, e := range pb.Paths {
			if err := record.ValidatePath(e.Path); err != nil {
				return fmt.Errorf("%w: %s: %w", record.ErrCorrupt, what, err)
			}
			if a, b := fanKey(e.Path); a+"/"+b != bucket {
				return fmt.Errorf("%w: %s lists %s, which belongs in another bucket", record.ErrCorrupt, what, e.Path)
			}
			for _, p := range e.Calls {
				if err := p.Call.Validate(); err != nil {
					return fmt.Errorf("%w: %s: %w", record.ErrCorrupt, what, err)
				}
			}
			if trim {
				e.Calls = trimPostings(e.Calls)
			}
			out[e.Path] = e.Calls
		}
		return nil
	})
	return out, err
}

// scanPostings is PathIndex from the records of every call.
func (s *Store) scanPostings(r *Run) (map[string][]Posting, error) {
	if err := s.loadAll(r); err != nil {
		return nil, err
	}
	return IndexedPostings(r), nil
}

// LedgerEntries returns the ledger entry of every call of r, in no
// particular order, reading each call's ledger.json and none of its other
// records.
func (s *Store) LedgerEntries(r *Run) ([]record.LedgerEntry, error) {
	if r.legacy || !r.Exists() {
		if err := s.loadAll(r); err != nil {
			return nil, err
		}
		out := make([]record.LedgerEntry, 0, len(r.Calls))
		for _, c := range r.Calls {
			out = append(out, c.Ledger)
		}
		return out, nil
	}
	var out []record.LedgerEntry
	if r.calls.IsZero() {
		return nil, nil
	}
	err := s.fanLeaves(r.calls, "calls", func(a, b string, e odb.TreeEntry) error {
		if x, y := fanKey(e.Name); x != a || y != b {
			return fmt.Errorf("%w: calls/%s/%s/%s is filed under the wrong folder", record.ErrCorrupt, a, b, e.Name)
		}
		l, err := s.ledgerOf(r, e)
		out = append(out, l)
		return err
	})
	return out, err
}

// HeadMoveCalls returns the calls of r during which HEAD moved.
func (s *Store) HeadMoveCalls(r *Run) ([]record.CallID, error) {
	if r.legacy || !r.Exists() {
		if err := s.loadAll(r); err != nil {
			return nil, err
		}
		var out []record.CallID
		for id, c := range r.Calls {
			if c.Ledger.Head.Moved() {
				out = append(out, id)
			}
		}
		slices.Sort(out)
		return out, nil
	}
	var hl callList
	if _, err := s.readIndexBlob(r.index, "heads.json", &hl); err != nil {
		return nil, err
	}
	for _, id := range hl.Calls {
		if err := id.Validate(); err != nil {
			return nil, fmt.Errorf("%w: %s/heads.json: %w", record.ErrCorrupt, indexName, err)
		}
	}
	return hl.Calls, nil
}

// LoadCalls adds the records of the named calls to r.Calls, reading only
// those; ids the run does not have are left out.
func (s *Store) LoadCalls(r *Run, ids ...record.CallID) error {
	return s.loadCalls(r, ids)
}

func (s *Store) loadCalls(r *Run, ids []record.CallID) error {
	for _, id := range ids {
		if r.Calls[id] != nil || !r.Exists() {
			continue
		}
		if r.legacy {
			if h, ok := r.other[id]; ok {
				if err := s.readCallEntry(odb.TreeEntry{Name: string(id), Mode: record.ModeTree, Hash: h}, r); err != nil {
					return err
				}
				delete(r.other, id)
			}
			continue
		}
		e, ok, err := s.fanLookup(r.calls, string(id), "calls")
		if err != nil {
			return err
		}
		if ok {
			if err := s.readCallEntry(e, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// LoadIndexed is LoadCalls for calls the run index named: a call it names
// and the run does not have is a corrupt index.
func (s *Store) LoadIndexed(r *Run, ids ...record.CallID) error {
	if err := s.loadCalls(r, ids); err != nil {
		return err
	}
	for _, id := range ids {
		if r.Calls[id] == nil && r.Exists() {
			return fmt.Errorf("%w: the run index names call %s, which run %s does not have", record.ErrCorrupt, id, r.ID)
		}
	}
	return nil
}

// loadAll reads every call of r not read yet.
func (s *Store) loadAll(r *Run) error {
	if !r.Exists() {
		return nil
	}
	if r.legacy {
		for id, h := range r.other {
			if err := s.readCallEntry(odb.TreeEntry{Name: string(id), Mode: record.ModeTree, Hash: h}, r); err != nil {
				return err
			}
		}
		r.other = nil
		return nil
	}
	if !r.partial || r.calls.IsZero() {
		r.partial = false
		return nil
	}
	err := s.fanLeaves(r.calls, "calls", func(a, b string, e odb.TreeEntry) error {
		id, err := record.ParseCallID(e.Name)
		if err != nil {
			return fmt.Errorf("%w: calls/%s/%s/%s is not a valid call", record.ErrCorrupt, a, b, e.Name)
		}
		if r.Calls[id] != nil {
			return nil
		}
		if x, y := fanKey(e.Name); x != a || y != b {
			return fmt.Errorf("%w: calls/%s/%s/%s is filed under the wrong folder", record.ErrCorrupt, a, b, e.Name)
		}
		return s.readCallEntry(e, r)
	})
	if err == nil {
		r.partial = false
	}
	return err
}

// LoadAll reads every call of r not read yet.
func (s *Store) LoadAll(r *Run) error { return s.loadAll(r) }

// HasCall reports whether r has call id, reading none of its records.
func (s *Store) HasCall(r *Run, id record.CallID) (bool, error) {
	if r.Calls[id] != nil {
		return true, nil
	}
	if !r.Exists() || !r.partial && !r.legacy {
		return false, nil
	}
	if r.legacy {
		_, ok := r.other[id]
		return ok, nil
	}
	_, ok, err := s.fanLookup(r.calls, string(id), "calls")
	return ok, err
}

// IndexedPostings computes what PathIndex returns from the calls r holds:
// the run index as a full read derives it (r must hold every call).
func IndexedPostings(r *Run) map[string][]Posting {
	out := ScanPostings(r)
	for p, list := range out {
		out[p] = trimPostings(list)
	}
	return out
}

// ScanPostings lists, per path, the postings of every call r holds that
// names it, oldest first: what the path index keeps a part of.
func ScanPostings(r *Run) map[string][]Posting {
	out := map[string][]Posting{}
	for _, c := range r.Calls {
		for p, x := range postingsOf(c) {
			out[p] = append(out[p], x)
		}
	}
	for _, list := range out {
		slices.SortFunc(list, ComparePostings)
	}
	return out
}

// checkIndex refuses a run index that does not hold exactly what the
// records of r's calls give (r must hold every call): a forged index could
// otherwise hide a path from status and undo, or point them at other calls.
func (s *Store) checkIndex(r *Run) error {
	if r.legacy || r.index.IsZero() && len(r.Calls) == 0 {
		return nil
	}
	if r.index.IsZero() {
		return fmt.Errorf("%w: the run has calls and no %s/", record.ErrCorrupt, indexName)
	}
	top, err := s.db.ReadTree(r.index)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", record.ErrCorrupt, indexName, err)
	}
	for _, e := range top {
		// ledger/ is what earlier versions kept; nothing reads it.
		if e.Name != "paths" && e.Name != "heads.json" && e.Name != notesFile && e.Name != orderPart && e.Name != "ledger" {
			return fmt.Errorf("%w: unexpected entry %s/%s", record.ErrCorrupt, indexName, e.Name)
		}
	}
	idx, err := s.PathIndex(r)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(idx, IndexedPostings(r)) {
		return fmt.Errorf("%w: %s/paths does not match the calls' records", record.ErrCorrupt, indexName)
	}
	if order, err := s.orderTree(r); err != nil {
		return err
	} else if !order.IsZero() {
		var got []Posting
		err := s.CallsNewestFirst(r, func(p Posting) (bool, error) { got = append(got, p); return true, nil })
		if err != nil {
			return err
		}
		slices.Reverse(got)
		if !slices.Equal(got, ScanOrder(r)) {
			return fmt.Errorf("%w: %s/%s does not match the calls' records", record.ErrCorrupt, indexName, orderPart)
		}
	}
	heads, err := s.HeadMoveCalls(r)
	if err != nil {
		return err
	}
	var want []record.CallID
	for id, c := range r.Calls {
		if c.Ledger.Head.Moved() {
			want = append(want, id)
		}
	}
	slices.Sort(want)
	if !slices.Equal(heads, want) {
		return fmt.Errorf("%w: %s/heads.json does not match the calls' records", record.ErrCorrupt, indexName)
	}
	return s.checkNotes(r)
}

// notesFile lists the calls whose ledger entry carries notes for status.
const notesFile = "notes.json"

// noted reports whether c's ledger entry lists skipped paths or view
// changes: what status shows of calls that changed no file.
func noted(c *Call) bool { return len(c.Ledger.Skipped) > 0 || len(c.Ledger.ViewChanges) > 0 }

// NotedCalls returns the calls of r whose ledger entry lists skipped paths
// or view changes, sorted, reading the run index (every call in runs
// without one). Runs recorded before the index kept the list may leave out
// calls that only skipped paths; every call with view changes is listed.
func (s *Store) NotedCalls(r *Run) ([]record.CallID, error) {
	if r.legacy || !r.Exists() {
		if err := s.loadAll(r); err != nil {
			return nil, err
		}
		var out []record.CallID
		for id, c := range r.Calls {
			if noted(c) {
				out = append(out, id)
			}
		}
		slices.Sort(out)
		return out, nil
	}
	var nl callList
	if _, err := s.readIndexBlob(r.index, notesFile, &nl); err != nil {
		return nil, err
	}
	for _, id := range nl.Calls {
		if err := id.Validate(); err != nil {
			return nil, fmt.Errorf("%w: %s/%s: %w", record.ErrCorrupt, indexName, notesFile, err)
		}
	}
	return nl.Calls, nil
}

// checkNotes refuses a notes list that names a call without notes, or
// leaves out one with view changes (r must hold every call).
func (s *Store) checkNotes(r *Run) error {
	list, err := s.NotedCalls(r)
	if err != nil {
		return err
	}
	listed := map[record.CallID]bool{}
	for _, id := range list {
		if c := r.Calls[id]; c == nil || !noted(c) {
			return fmt.Errorf("%w: %s/%s names call %s, which has no notes", record.ErrCorrupt, indexName, notesFile, id)
		}
		listed[id] = true
	}
	for id, c := range r.Calls {
		if len(c.Ledger.ViewChanges) > 0 && !listed[id] {
			return fmt.Errorf("%w: %s/%s leaves out call %s", record.ErrCorrupt, indexName, notesFile, id)
		}
	}
	return nil
}
