package patchstore

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// The order part of the run index (runindex/order/) lists every call of the
// run by when it finished, so that plain undo (the newest call in effect)
// and a page of the ledger (the newest calls) read the newest few calls
// whatever the run's length:
//
//	runindex/order/open        calls started and not finished
//	runindex/order/<hi>/<lo>   calls whose FinishSeq>>6 is hi<<5 | lo (hex)
//
// Each record is {"version":2,"calls":[Posting...]} with the call's tool,
// start, finish, whether it has patches and whether it is undone. A
// segment spans 64 checkpoints and a folder 32 segments, so a checkpoint
// rewrites one or two small records and the two small trees above them.
const (
	orderPart    = "order"
	orderOpen    = "open"
	segmentShift = 6 // 64 checkpoints per segment
	folderShift  = 5 // 32 segments per folder
)

// orderPath is where the order part files a call that finished in
// checkpoint finish (0: open).
func orderPath(finish int) string {
	if finish == 0 {
		return orderOpen
	}
	seg := finish >> segmentShift
	return strconv.FormatInt(int64(seg>>folderShift), 16) + "/" + strconv.FormatInt(int64(seg&(1<<folderShift-1)), 16)
}

// orderPosting is what the order part holds for c.
func orderPosting(c *Call) Posting {
	l := &c.Ledger
	return Posting{Call: l.CallID, Tool: l.ToolName, Start: l.StartSeq, Finish: l.FinishSeq,
		Patch: len(c.Patches) > 0, Undone: l.UndoneBy != ""}
}

// orderTree returns the order part of r's index; zero for a run with no
// calls, a version 1 run, and a run indexed before the order part existed
// (its next checkpoint rebuilds the index).
func (s *Store) orderTree(r *Run) (record.Hash, error) {
	if r.index.IsZero() || r.legacy {
		return record.ZeroHash, nil
	}
	top, err := s.db.ReadTree(r.index)
	if err != nil {
		return record.ZeroHash, fmt.Errorf("%w: %s: %w", record.ErrCorrupt, indexName, err)
	}
	i := findEntry(top, orderPart)
	if i < 0 {
		return record.ZeroHash, nil
	}
	if top[i].Mode != record.ModeTree {
		return record.ZeroHash, fmt.Errorf("%w: %s/%s is not a folder", record.ErrCorrupt, indexName, orderPart)
	}
	return top[i].Hash, nil
}

// orderSegments collects the order part's changes a checkpoint makes.
type orderSegments struct {
	s     *Store
	base  record.Hash
	segs  map[string]map[record.CallID]Posting
	dirty map[string]bool
}

func (o *orderSegments) load(path string) (map[record.CallID]Posting, error) {
	if m, ok := o.segs[path]; ok {
		return m, nil
	}
	var b postingList
	m := map[record.CallID]Posting{}
	if ok, err := o.s.readIndexBlob(o.base, orderPart+"/"+path, &b); err != nil {
		return nil, err
	} else if ok {
		for _, p := range b.Calls {
			m[p.Call] = p
		}
	}
	o.segs[path] = m
	return m, nil
}

// move files c where it now belongs, taking it out of where it was filed
// when read (indexedFinish; none for a call new to the index).
func (o *orderSegments) move(c *Call, wasIndexed bool) error {
	id := c.Ledger.CallID
	if wasIndexed {
		from := orderPath(c.indexedFinish)
		m, err := o.load(from)
		if err != nil {
			return err
		}
		delete(m, id)
		o.dirty[from] = true
	}
	to := orderPath(c.Ledger.FinishSeq)
	m, err := o.load(to)
	if err != nil {
		return err
	}
	m[id] = orderPosting(c)
	o.dirty[to] = true
	return nil
}

// states returns the records to write, an empty one for a segment left
// with no call.
func (o *orderSegments) states(put func(path string, v any, empty bool) error) error {
	for path := range o.dirty {
		m := o.segs[path]
		b := postingList{Version: record.FormatVersion}
		for _, p := range m {
			b.Calls = append(b.Calls, p)
		}
		slices.SortFunc(b.Calls, ComparePostings)
		if err := put(orderPart+"/"+path, &b, len(b.Calls) == 0); err != nil {
			return err
		}
	}
	return nil
}

type postingList struct {
	Version int       `json:"version"`
	Calls   []Posting `json:"calls"`
}

// CallsNewestFirst calls visit with a posting of every call of r (its
// tool, start, finish, whether it has patches and is undone), newest first
// as ComparePostings orders them, until visit returns false. It reads the
// order part of the run index a segment at a time, so visiting the newest
// few calls costs the same however long the run; runs whose index lacks
// the order part are read whole.
func (s *Store) CallsNewestFirst(r *Run, visit func(Posting) (bool, error)) error {
	order, err := s.orderTree(r)
	if err != nil {
		return err
	}
	if order.IsZero() {
		if err := s.loadAll(r); err != nil {
			return err
		}
		_, err := visitNewestFirst(ScanOrder(r), visit)
		return err
	}
	folders, err := s.db.ReadTree(order)
	if err != nil {
		return fmt.Errorf("%w: %s/%s: %w", record.ErrCorrupt, indexName, orderPart, err)
	}
	type numbered struct {
		n int
		e odb.TreeEntry
	}
	var hi []numbered
	for _, e := range folders {
		if e.Name == orderOpen {
			continue
		}
		n, err := orderNumber(e.Name)
		if err != nil || e.Mode != record.ModeTree {
			return fmt.Errorf("%w: %s/%s/%s is not an order folder", record.ErrCorrupt, indexName, orderPart, e.Name)
		}
		hi = append(hi, numbered{n, e})
	}
	if j := findEntry(folders, orderOpen); j >= 0 {
		more, err := s.visitSegment(folders[j], orderOpen, visit)
		if err != nil || !more {
			return err
		}
	}
	byNumber := func(a, b numbered) int { return cmp.Compare(b.n, a.n) }
	slices.SortFunc(hi, byNumber)
	for _, h := range hi {
		leaves, err := s.db.ReadTree(h.e.Hash)
		if err != nil {
			return fmt.Errorf("%w: %s/%s/%s: %w", record.ErrCorrupt, indexName, orderPart, h.e.Name, err)
		}
		var lo []numbered
		for _, e := range leaves {
			n, err := orderNumber(e.Name)
			if err != nil || n >= 1<<folderShift || e.Mode != record.ModeFile {
				return fmt.Errorf("%w: %s/%s/%s/%s is not an order record", record.ErrCorrupt, indexName, orderPart, h.e.Name, e.Name)
			}
			lo = append(lo, numbered{n, e})
		}
		slices.SortFunc(lo, byNumber)
		for _, l := range lo {
			more, err := s.visitSegment(l.e, h.e.Name+"/"+l.e.Name, visit)
			if err != nil || !more {
				return err
			}
		}
	}
	return nil
}

// orderNumber parses an order folder or record name: lower-case hex
// without leading zeros, as orderPath writes it.
func orderNumber(name string) (int, error) {
	n, err := strconv.ParseInt(name, 16, 32)
	if err != nil || n < 0 || strconv.FormatInt(n, 16) != name {
		return 0, fmt.Errorf("bad order name %q", name)
	}
	return int(n), nil
}

// visitSegment decodes one order record, checks that every call in it is
// filed where orderPath puts it, and visits its calls newest first.
func (s *Store) visitSegment(e odb.TreeEntry, path string, visit func(Posting) (bool, error)) (bool, error) {
	what := indexName + "/" + orderPart + "/" + path
	if e.Mode != record.ModeFile {
		return false, fmt.Errorf("%w: %s is not a file", record.ErrCorrupt, what)
	}
	var b postingList
	if err := s.readJSON(e.Hash, &b, what); err != nil {
		return false, err
	}
	if !record.SupportedVersion(b.Version) {
		return false, fmt.Errorf("%w: %s: %w: version %d", record.ErrCorrupt, what, record.ErrFormatVersion, b.Version)
	}
	for _, p := range b.Calls {
		if err := p.Call.Validate(); err != nil {
			return false, fmt.Errorf("%w: %s: %w", record.ErrCorrupt, what, err)
		}
		if p.Finish < 0 || p.Start < 0 || orderPath(p.Finish) != path {
			return false, fmt.Errorf("%w: %s lists call %s, which belongs elsewhere", record.ErrCorrupt, what, p.Call)
		}
	}
	return visitNewestFirst(b.Calls, visit)
}

func visitNewestFirst(list []Posting, visit func(Posting) (bool, error)) (bool, error) {
	slices.SortFunc(list, func(a, b Posting) int { return ComparePostings(b, a) })
	for _, p := range list {
		if more, err := visit(p); err != nil || !more {
			return false, err
		}
	}
	return true, nil
}

// ScanOrder is what the order part holds, from the calls r holds (r must
// hold every call), oldest first.
func ScanOrder(r *Run) []Posting {
	out := make([]Posting, 0, len(r.Calls))
	for _, c := range r.Calls {
		out = append(out, orderPosting(c))
	}
	slices.SortFunc(out, ComparePostings)
	return out
}

// LedgerOf returns the ledger entries of the named calls of r, in the
// order given, reading only each call's ledger.json (or the call's records
// when r holds them already).
func (s *Store) LedgerOf(r *Run, ids []record.CallID) ([]record.LedgerEntry, error) {
	if r.legacy {
		// A version 1 run has no fan-out to look a call up in.
		if err := s.loadCalls(r, ids); err != nil {
			return nil, err
		}
	}
	out := make([]record.LedgerEntry, 0, len(ids))
	for _, id := range ids {
		e := odb.TreeEntry{Name: string(id)}
		if r.Calls[id] == nil {
			found, ok, err := s.fanLookup(r.calls, string(id), "calls")
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, fmt.Errorf("%w: the run index names call %s, which run %s does not have", record.ErrCorrupt, id, r.ID)
			}
			e = found
		}
		l, err := s.ledgerOf(r, e)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// ledgerOf returns the ledger entry of the call filed at e, from r when r
// holds the call, else from its ledger.json alone.
func (s *Store) ledgerOf(r *Run, e odb.TreeEntry) (record.LedgerEntry, error) {
	var l record.LedgerEntry
	id, err := record.ParseCallID(e.Name)
	if err == nil {
		if c := r.Calls[id]; c != nil {
			return c.Ledger, nil
		}
	}
	if err != nil || e.Mode != record.ModeTree {
		return l, fmt.Errorf("%w: calls/%s is not a valid call", record.ErrCorrupt, e.Name)
	}
	what := "calls/" + e.Name + "/ledger.json"
	st, err := s.db.Lookup(e.Hash, "ledger.json")
	if err != nil || !st.Exists() || st.Mode != record.ModeFile {
		return l, errors.Join(fmt.Errorf("%w: %s is missing", record.ErrCorrupt, what), err)
	}
	if err := s.readJSON(st.Hash, &l, what); err != nil {
		return l, err
	}
	return l, l.Validate(id)
}
