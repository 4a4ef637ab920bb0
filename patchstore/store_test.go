package patchstore

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// The tests here write runs through the Store and check what they wrote
// with the git CLI: git fsck --strict (also at every repository's
// cleanup), git for-each-ref for the run refs, git cat-file for records
// and objects, git hash-object for content ids.

// storeRepo is a repository with one commit and a Store on it whose clock
// ticks one second per record, from a fixed start.
func storeRepo(t *testing.T) (*gittest.Repo, *Store) {
	t.Helper()
	r := gittest.New(t)
	r.Write("a.txt", "alpha\n")
	r.Commit("init")
	return r, openStore(t, r.Dir)
}

func openStore(t *testing.T, dir string) *Store {
	t.Helper()
	tick := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s, err := Open(context.Background(), dir, Options{Now: func() time.Time {
		tick = tick.Add(time.Second)
		return tick
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// hashObject stores content with git hash-object -w and returns its id.
func hashObject(t *testing.T, r *gittest.Repo, content string) record.Hash {
	t.Helper()
	out, err := git.Cmd{Dir: r.Dir, Args: []string{"hash-object", "-w", "--stdin"}, Stdin: strings.NewReader(content)}.Run(context.Background())
	if err != nil {
		t.Fatalf("git hash-object: %v", err)
	}
	h, err := record.ParseHash(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// change is one file a call changed: absent content is "".
type change struct{ path, before, after string }

// callSpec is one call recorded in a checkpoint of its own.
type callSpec struct {
	id      record.CallID
	status  record.Status
	changes []change
}

// fileState is the state of content stored in r; the zero State for "".
func fileState(t *testing.T, r *gittest.Repo, content string) record.State {
	if content == "" {
		return record.State{}
	}
	return record.State{Mode: record.ModeFile, Hash: hashObject(t, r, content)}
}

// recordCall commits spec as one checkpoint of run: its ledger entry and
// one patch per change, every blob written by git first.
func recordCall(t *testing.T, r *gittest.Repo, s *Store, run record.RunID, spec callSpec) *Run {
	t.Helper()
	var patches []record.FilePatch
	for _, c := range spec.changes {
		b, a := fileState(t, r, c.before), fileState(t, r, c.after)
		patches = append(patches, record.FilePatch{Path: c.path, ToolCallID: spec.id,
			BeforeHash: b.Hash, BeforeMode: b.Mode, AfterHash: a.Hash, AfterMode: a.Mode})
	}
	next, err := s.CommitCalls(context.Background(), run, []record.CallID{spec.id}, func(tip *Run) (*record.Checkpoint, error) {
		seq := 1
		if tip.Exists() {
			seq = tip.Checkpoint.Seq + 1
		}
		var paths []string
		for _, c := range spec.changes {
			paths = append(paths, c.path)
		}
		ledger := record.LedgerEntry{Version: record.FormatVersion, CallID: spec.id, ToolName: "edit",
			Status: spec.status, Paths: paths, StartSeq: seq, FinishSeq: seq, Patches: len(patches)}
		if c := tip.Calls[spec.id]; c != nil { // a call recorded before: rewritten
			ledger.StartSeq = c.Ledger.StartSeq
			c.Ledger, c.Patches = ledger, patches
			c.Touch()
		} else {
			tip.Calls[spec.id] = &Call{Call: record.Call{Ledger: ledger, Patches: patches}}
		}
		return &record.Checkpoint{Kind: record.KindCallFinish, CallID: spec.id, Label: "finish " + string(spec.id)}, nil
	})
	if err != nil {
		t.Fatalf("record call %s: %v", spec.id, err)
	}
	return next
}

// callPath is where a call's records sit in a checkpoint's tree: the
// first two hex digits of the SHA-1 of its id, as git notes fans out.
func callPath(id record.CallID) string {
	sum := sha1.Sum([]byte(id))
	h := hex.EncodeToString(sum[:1])
	return "calls/" + h[:1] + "/" + h[1:] + "/" + string(id)
}

// refsOf lists the refs under refs/agent-checkpoints/ as git sees them.
func refsOf(t *testing.T, r *gittest.Repo) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range strings.Split(r.Git("for-each-ref", "--format=%(refname) %(objectname)", "refs/agent-checkpoints/"), "\n") {
		if name, id, ok := strings.Cut(l, " "); ok {
			out[name] = id
		}
	}
	return out
}

// catJSON reads the JSON record at path in commit with git cat-file.
func catJSON(t *testing.T, r *gittest.Repo, commit record.Hash, path string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.Git("cat-file", "blob", commit.String()+":"+path)), v); err != nil {
		t.Fatalf("%s:%s: %v", commit.Short(), path, err)
	}
}

// TestCommitReadBack records runs of one or more calls and reads them
// back: the Store's reading, git's view of the ref and of every record,
// and the content ids of every patch agree with what was written.
func TestCommitReadBack(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		calls []callSpec
	}{
		{"ledger only", []callSpec{{id: "c1", status: record.StatusFailed}}},
		{"modify", []callSpec{{id: "c1", status: record.StatusSucceeded,
			changes: []change{{"a.txt", "alpha\n", "alpha, edited\n"}}}}},
		{"create and delete", []callSpec{{id: "c1", status: record.StatusSucceeded,
			changes: []change{{"new/deep/b.txt", "", "bravo\n"}, {"a.txt", "alpha\n", ""}}}}},
		{"three calls", []callSpec{
			{id: "c1", status: record.StatusSucceeded, changes: []change{{"a.txt", "alpha\n", "one\n"}}},
			{id: "c2", status: record.StatusUncertain, changes: []change{{"a.txt", "one\n", "two\n"}, {"x", "", "x\n"}}},
			{id: "c3", status: record.StatusSucceeded, changes: []change{{"x", "x\n", ""}}},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, s := storeRepo(t)
			ctx := context.Background()
			var tip *Run
			for _, c := range tc.calls {
				tip = recordCall(t, r, s, "run1", c)
			}
			if diff := cmp.Diff(map[string]string{gitrefs.RunRef("run1"): tip.Commit.String()}, refsOf(t, r)); diff != "" {
				t.Errorf("git for-each-ref (-want +got):\n%s", diff)
			}
			r.Git("fsck", "--strict", "--no-progress", "--no-dangling")

			got, err := openStore(t, r.Dir).ReadRun(ctx, "run1")
			if err != nil {
				t.Fatal(err)
			}
			if got.Commit != tip.Commit || got.Damage != nil {
				t.Fatalf("ReadRun: commit %s damage %v, want %s intact", got.Commit, got.Damage, tip.Commit)
			}
			var cp record.Checkpoint
			catJSON(t, r, got.Commit, "checkpoint.json", &cp)
			if diff := cmp.Diff(&cp, got.Checkpoint); diff != "" {
				t.Errorf("checkpoint.json as git shows it vs as read (-git +read):\n%s", diff)
			}
			if cp.Seq != len(tc.calls) || cp.ID != record.NewCheckpointID(len(tc.calls)) || cp.RunID != "run1" {
				t.Errorf("checkpoint %s seq %d of run %s, want seq %d of run1", cp.ID, cp.Seq, cp.RunID, len(tc.calls))
			}
			if len(got.Calls) != len(tc.calls) {
				t.Errorf("%d calls read, want %d", len(got.Calls), len(tc.calls))
			}
			for _, spec := range tc.calls {
				c := got.Calls[spec.id]
				if c == nil {
					t.Errorf("call %s not read", spec.id)
					continue
				}
				var ledger record.LedgerEntry
				catJSON(t, r, got.Commit, callPath(spec.id)+"/ledger.json", &ledger)
				if diff := cmp.Diff(ledger, c.Ledger); diff != "" {
					t.Errorf("call %s: ledger.json (-git +read):\n%s", spec.id, diff)
				}
				if c.Ledger.Status != spec.status {
					t.Errorf("call %s: status %s, want %s", spec.id, c.Ledger.Status, spec.status)
				}
				var patches []record.FilePatch
				if len(spec.changes) > 0 {
					catJSON(t, r, got.Commit, callPath(spec.id)+"/patches.json", &patches)
				}
				if diff := cmp.Diff(patches, c.Patches, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("call %s: patches.json (-git +read):\n%s", spec.id, diff)
				}
				if len(c.Patches) != len(spec.changes) {
					t.Fatalf("call %s: %d patches, want %d", spec.id, len(c.Patches), len(spec.changes))
				}
				for i, ch := range spec.changes {
					p := c.Patches[i]
					for _, side := range []struct {
						content string
						st      record.State
					}{{ch.before, p.Before()}, {ch.after, p.After()}} {
						if side.content == "" {
							if side.st.Exists() {
								t.Errorf("call %s %s: state %v for an absent file", spec.id, ch.path, side.st)
							}
							continue
						}
						if got := hashObject(t, r, side.content); got != side.st.Hash {
							t.Errorf("call %s %s: hash %s, git hash-object says %s", spec.id, ch.path, side.st.Hash, got)
						}
						if body := r.Git("cat-file", "blob", side.st.Hash.String()); body+"\n" != side.content {
							t.Errorf("call %s %s: git cat-file shows %q, want %q", spec.id, ch.path, body, side.content)
						}
					}
				}
			}
		})
	}
}

// TestCommitRetriesOnLostRace has another writer move the run's ref while
// a commit is between reading the tip and moving the ref: the commit is
// retried on the new tip, the mutation sees the other writer's call, and
// neither checkpoint is lost. A writer that loses every race gets ErrBusy
// and leaves the ref where the other writer put it.
func TestCommitRetriesOnLostRace(t *testing.T) {
	t.Parallel()
	r, s := storeRepo(t)
	other := openStore(t, r.Dir)
	ctx := context.Background()
	recordCall(t, r, s, "run1", callSpec{id: "c1", status: record.StatusSucceeded})

	var tips []record.Hash
	var seen [][]record.CallID
	final, err := s.Commit(ctx, "run1", func(tip *Run) (*record.Checkpoint, error) {
		tips = append(tips, tip.Commit)
		var ids []record.CallID
		for id := range tip.Calls {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		seen = append(seen, ids)
		if len(tips) == 1 {
			// The other writer wins the race once.
			recordCall(t, r, other, "run1", callSpec{id: "c2", status: record.StatusSucceeded})
		}
		tip.Calls["c3"] = &Call{Call: record.Call{Ledger: record.LedgerEntry{Version: record.FormatVersion, CallID: "c3", ToolName: "edit",
			Status: record.StatusPlanned}}}
		return &record.Checkpoint{Kind: record.KindLedger, CallID: "c3"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tips) != 2 || tips[0] == tips[1] {
		t.Fatalf("mutation called on tips %v, want twice, the second time on the other writer's tip", tips)
	}
	if diff := cmp.Diff([][]record.CallID{{"c1"}, {"c1", "c2"}}, seen); diff != "" {
		t.Errorf("calls the mutation was given (-want +got):\n%s", diff)
	}
	if got := refsOf(t, r)[gitrefs.RunRef("run1")]; got != final.Commit.String() {
		t.Errorf("git for-each-ref: run ref at %s, want the retried commit %s", got, final.Commit)
	}
	// The chain, as git walks it: three checkpoints, the other writer's in
	// the middle.
	chain := strings.Fields(r.Git("rev-list", "--first-parent", gitrefs.RunRef("run1")))
	if len(chain) != 3 || chain[1] != tips[1].String() {
		t.Errorf("git rev-list: %v, want 3 checkpoints with %s second", chain, tips[1])
	}
	run, err := openStore(t, r.Dir).ReadRun(ctx, "run1")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []record.CallID{"c1", "c2", "c3"} {
		if run.Calls[id] == nil {
			t.Errorf("call %s lost", id)
		}
	}

	// Losing every race.
	attempts := 0
	_, err = s.Commit(ctx, "run1", func(tip *Run) (*record.Checkpoint, error) {
		attempts++
		recordCall(t, r, other, "run1", callSpec{id: record.CallID(fmt.Sprintf("w%d", attempts)), status: record.StatusSucceeded})
		return &record.Checkpoint{Kind: record.KindSnapshot}, nil
	})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("a writer losing every race: %v, want ErrBusy", err)
	}
	if attempts != maxAttempts {
		t.Errorf("%d attempts, want %d", attempts, maxAttempts)
	}
	last, err := other.ReadRun(ctx, "run1")
	if err != nil {
		t.Fatal(err)
	}
	if got := refsOf(t, r)[gitrefs.RunRef("run1")]; got != last.Commit.String() || last.Checkpoint.Seq != 3+maxAttempts {
		t.Errorf("run ref at %s (seq %d), want the other writer's last checkpoint %s (seq %d)", got, last.Checkpoint.Seq, last.Commit, 3+maxAttempts)
	}
	r.Git("fsck", "--strict", "--no-progress", "--no-dangling")
}

// manyCalls records a run whose calls touch overlapping paths over several
// checkpoints, one call rewritten after its first record (started, then
// finished with its patch).
func manyCalls(t *testing.T, r *gittest.Repo, s *Store) *Run {
	t.Helper()
	for i := 1; i <= 6; i++ {
		id := record.CallID(fmt.Sprintf("c%d", i))
		path := fmt.Sprintf("f%d.txt", i%3)
		recordCall(t, r, s, "run1", callSpec{id: id, status: record.StatusSucceeded,
			changes: []change{{path, fmt.Sprintf("v%d\n", i-1), fmt.Sprintf("v%d\n", i)}}})
	}
	recordCall(t, r, s, "run1", callSpec{id: "c7", status: record.StatusStarted})
	return recordCall(t, r, s, "run1", callSpec{id: "c7", status: record.StatusSucceeded,
		changes: []change{{"f0.txt", "v6\n", "v7\n"}, {"g.txt", "", "g\n"}}})
}

// TestReadRunCallsMatchesReadRun: reading a run's calls through the run
// index (ReadRunCalls, PathIndex, LedgerEntries) gives exactly what the
// full read gives, for each call alone and for several at once.
func TestReadRunCallsMatchesReadRun(t *testing.T) {
	t.Parallel()
	r, s := storeRepo(t)
	manyCalls(t, r, s)
	ctx := context.Background()
	full, err := openStore(t, r.Dir).ReadRun(ctx, "run1")
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Calls) != 7 {
		t.Fatalf("full read: %d calls, want 7", len(full.Calls))
	}
	opt := cmp.Options{cmp.AllowUnexported(Call{}), cmpopts.IgnoreUnexported(Call{}), cmpopts.EquateEmpty()}
	sets := [][]record.CallID{{"c1"}, {"c7"}, {"c2", "c5"}, {"c3", "nope"}, {"c1", "c2", "c3", "c4", "c5", "c6", "c7"}}
	for _, ids := range sets {
		t.Run(fmt.Sprint(ids), func(t *testing.T) {
			part, err := openStore(t, r.Dir).ReadRunCalls(ctx, "run1", ids...)
			if err != nil {
				t.Fatal(err)
			}
			if part.Commit != full.Commit {
				t.Fatalf("read at %s, full read at %s", part.Commit, full.Commit)
			}
			if diff := cmp.Diff(full.Checkpoint, part.Checkpoint); diff != "" {
				t.Errorf("checkpoint (-full +calls):\n%s", diff)
			}
			want := map[record.CallID]*Call{}
			for _, id := range ids {
				if c := full.Calls[id]; c != nil {
					want[id] = c
				}
			}
			if diff := cmp.Diff(want, part.Calls, opt); diff != "" {
				t.Errorf("calls (-full +calls):\n%s", diff)
			}
		})
	}
	// The run index against what the records of every call give.
	idx, err := s.PathIndex(full)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(IndexedPostings(full), idx, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("PathIndex vs the postings of every call (-records +index):\n%s", diff)
	}
	if len(idx) != 4 {
		t.Errorf("PathIndex lists %d paths, want f0.txt, f1.txt, f2.txt and g.txt", len(idx))
	}
	entries, err := s.LedgerEntries(full)
	if err != nil {
		t.Fatal(err)
	}
	var want []record.LedgerEntry
	for _, c := range full.SortedCalls() {
		want = append(want, c.Ledger)
	}
	sortLedger := cmpopts.SortSlices(func(a, b record.LedgerEntry) bool { return a.CallID < b.CallID })
	if diff := cmp.Diff(want, entries, sortLedger); diff != "" {
		t.Errorf("LedgerEntries vs the full read (-full +index):\n%s", diff)
	}
}

// TestHistory walks a run's chain: newest first, each record's Prev the
// next entry, the commits those git rev-list walks; limits, lookups by
// sequence number and unknown runs.
func TestHistory(t *testing.T) {
	t.Parallel()
	r, s := storeRepo(t)
	manyCalls(t, r, s)
	ctx := context.Background()
	hist, err := s.History(ctx, "run1", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, e := range hist {
		got = append(got, e.Commit.String())
		if want := len(hist) - i; e.Checkpoint.Seq != want || e.Checkpoint.ID != record.NewCheckpointID(want) {
			t.Errorf("entry %d: %s seq %d, want seq %d", i, e.Checkpoint.ID, e.Checkpoint.Seq, want)
		}
		if i+1 < len(hist) && e.Checkpoint.Prev != hist[i+1].Commit {
			t.Errorf("entry %d: prev %s, want %s", i, e.Checkpoint.Prev, hist[i+1].Commit)
		}
	}
	if n := len(hist); n == 0 || !hist[n-1].Checkpoint.Prev.IsZero() {
		t.Errorf("the chain does not end at a first checkpoint")
	}
	want := strings.Fields(r.Git("rev-list", "--first-parent", gitrefs.RunRef("run1")))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("History vs git rev-list (-git +history):\n%s", diff)
	}
	two, err := s.History(ctx, "run1", 2)
	if err != nil || len(two) != 2 || two[0].Commit != hist[0].Commit || two[1].Commit != hist[1].Commit {
		t.Errorf("History limit 2: %d entries, %v; want the newest two", len(two), err)
	}
	for _, seq := range []int{1, 4, len(hist)} {
		e, err := s.CheckpointAt(ctx, "run1", seq)
		if err != nil || e.Commit != hist[len(hist)-seq].Commit {
			t.Errorf("CheckpointAt(%d): %s %v, want %s", seq, e.Commit, err, hist[len(hist)-seq].Commit)
		}
	}
	if _, err := s.CheckpointAt(ctx, "run1", len(hist)+1); !errors.Is(err, ErrUnknownCheckpoint) {
		t.Errorf("CheckpointAt past the tip: %v, want ErrUnknownCheckpoint", err)
	}
	if _, err := s.History(ctx, "nope", 0); !errors.Is(err, ErrUnknownRun) {
		t.Errorf("History of an unknown run: %v, want ErrUnknownRun", err)
	}
	if _, err := s.ReadRun(ctx, "nope"); !errors.Is(err, ErrUnknownRun) {
		t.Errorf("ReadRun of an unknown run: %v, want ErrUnknownRun", err)
	}
}

// removeObject deletes the loose blob content names, as a disk error or a
// careless cleanup would, and checks git no longer has it. The blob is
// written again at cleanup, before the repository's git fsck.
func removeObject(t *testing.T, r *gittest.Repo, content string) record.Hash {
	t.Helper()
	h := hashObject(t, r, content)
	s := h.String()
	if err := os.Remove(filepath.Join(r.Dir, ".git", "objects", s[:2], s[2:])); err != nil {
		t.Fatalf("object %s is not loose: %v", h.Short(), err)
	}
	t.Cleanup(func() { hashObject(t, r, content) })
	if gittest.HasObject(r.Dir, h) {
		t.Fatalf("git still has %s after its loose copy went", h.Short())
	}
	return h
}

// TestDamagedRunReadsNewestIntact removes a blob only the newest
// checkpoint names: readers get the checkpoint before it, with Damage
// saying what is missing; History skips it; CheckRun agrees; Repair moves
// the run ref, as git for-each-ref shows, to the intact checkpoint. A
// damaged run with no intact checkpoint is an ErrDamaged error.
func TestDamagedRunReadsNewestIntact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("newest damaged", func(t *testing.T) {
		t.Parallel()
		r, s := storeRepo(t)
		recordCall(t, r, s, "run1", callSpec{id: "c1", status: record.StatusSucceeded, changes: []change{{"a.txt", "alpha\n", "one\n"}}})
		intact := recordCall(t, r, s, "run1", callSpec{id: "c2", status: record.StatusSucceeded, changes: []change{{"a.txt", "one\n", "two\n"}}})
		tip := recordCall(t, r, s, "run1", callSpec{id: "c3", status: record.StatusSucceeded, changes: []change{{"a.txt", "two\n", "only in the newest\n"}}})
		lost := removeObject(t, r, "only in the newest\n")
		// What git says: the blob is gone.
		if _, err := git.Run(ctx, r.Dir, "fsck", "--strict", "--no-progress", "--no-dangling"); err == nil {
			t.Fatal("git fsck accepts the repository with a blob gone")
		}
		fresh := openStore(t, r.Dir)
		for name, read := range map[string]func() (*Run, error){
			"ReadRun":      func() (*Run, error) { return fresh.ReadRun(ctx, "run1") },
			"ReadRunCalls": func() (*Run, error) { return fresh.ReadRunCalls(ctx, "run1", "c3") },
		} {
			got, err := read()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got.Commit != intact.Commit || got.Damage == nil || got.Damage.IntactID != "ckpt_002" || got.Damage.Tip != tip.Commit {
				t.Fatalf("%s: read %s damage %+v, want ckpt_002 (%s) with the tip %s damaged", name, got.Commit, got.Damage, intact.Commit, tip.Commit)
			}
			if len(got.Damage.Damaged) != 1 || got.Damage.Damaged[0].Commit != tip.Commit {
				t.Errorf("%s: damaged %+v, want the tip only", name, got.Damage.Damaged)
			}
			if got.Calls["c3"] != nil || (name == "ReadRun" && got.Calls["c2"] == nil) {
				t.Errorf("%s: calls %v, want c2 and not c3", name, got.Calls)
			}
		}
		d, err := fresh.CheckRun(ctx, "run1")
		if err != nil || d == nil {
			t.Fatalf("CheckRun: %+v %v, want the damage", d, err)
		}
		if d.Intact != intact.Commit || len(d.Damaged) != 1 || !strings.Contains(d.Summary(), lost.String()) {
			t.Errorf("CheckRun: %s, want intact %s and the lost blob %s named", d.Summary(), intact.Commit, lost)
		}
		hist, err := fresh.History(ctx, "run1", 0)
		if err != nil || len(hist) != 3 {
			t.Errorf("History of the damaged run: %d entries, %v; want all 3 records (they read)", len(hist), err)
		}
		if _, err := fresh.Repair(ctx, d); err != nil {
			t.Fatal(err)
		}
		if got := refsOf(t, r)[gitrefs.RunRef("run1")]; got != intact.Commit.String() {
			t.Errorf("after Repair the run ref is at %s, want %s", got, intact.Commit)
		}
		if d, err := openStore(t, r.Dir).CheckRun(ctx, "run1"); d != nil || err != nil {
			t.Errorf("CheckRun after Repair: %+v %v, want nothing missing", d, err)
		}
	})
	t.Run("nothing intact", func(t *testing.T) {
		t.Parallel()
		r, s := storeRepo(t)
		recordCall(t, r, s, "run1", callSpec{id: "c1", status: record.StatusSucceeded, changes: []change{{"a.txt", "alpha\n", "first\n"}}})
		removeObject(t, r, "first\n")
		_, err := openStore(t, r.Dir).ReadRun(ctx, "run1")
		if !errors.Is(err, ErrDamaged) {
			t.Errorf("ReadRun of a run with no intact checkpoint: %v, want ErrDamaged", err)
		}
	})
}
