package gitguard_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// TestRunIndexMatchesFullRead builds random runs (calls with declared paths
// and whole-workspace calls over overlapping paths, failed, uncertain and
// open calls, undo of the newest call and of named calls, redo, user edits,
// a commit inside a call, another run pruned) and checks after every step
// that the run index holds exactly what a read of every call derives, and
// that status and undo planning give the same answers from the index as
// from a full read. git fsck --strict must accept the repository.
func TestRunIndexMatchesFullRead(t *testing.T) {
	seen := map[string]bool{}
	t.Cleanup(func() {
		// The runs must have exercised what the index has to get right.
		for _, what := range []string{"undo", "redo", "undone", "failed", "uncertain", "open", "head moved", "late finish"} {
			if !t.Failed() && !seen[what] {
				t.Errorf("no run of the test had a call that is %s", what)
			}
		}
	})
	for seed := range 3 {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			files := map[string]string{".gitignore": "ignored/\n"}
			paths := []string{"a.txt", "b.txt", "dir/c.txt", "dir/sub/d.txt", "e.bin", "dir/f.txt"}
			for _, p := range paths[:4] {
				files[p] = "one\ntwo\nthree\n"
			}
			f := newFixture(t, files)
			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			var finished []record.CallID
			var open []record.CallID
			n := 0
			edit := func(ps []string) {
				for _, p := range ps {
					switch rng.IntN(6) {
					case 0:
						f.repo.Remove(p)
					default:
						f.repo.Write(p, fmt.Sprintf("line %d\n%s", rng.IntN(1000), strings.Repeat("x\n", rng.IntN(3))))
					}
				}
			}
			pick := func() []string {
				var out []string
				for _, i := range rng.Perm(len(paths))[:1+rng.IntN(3)] {
					out = append(out, paths[i])
				}
				return out
			}
			for step := range 36 {
				switch k := rng.IntN(10); {
				case k <= 3: // a call with declared paths
					n++
					id := record.CallID(fmt.Sprintf("toolu_%02d_%d", n, seed))
					ps := pick()
					if _, err := f.g.CallStart(f.ctx, f.run, gitguard.CallOptions{CallID: id, Tool: "edit", Paths: ps}); err != nil {
						t.Fatal(err)
					}
					edit(ps)
					if rng.IntN(8) == 0 {
						open = append(open, id) // left open for now
						break
					}
					if rng.IntN(10) == 0 {
						f.repo.Git("add", "-A")
						f.repo.Commit(fmt.Sprintf("commit inside %s", id))
					}
					st := []record.Status{record.StatusSucceeded, record.StatusSucceeded, record.StatusFailed, record.StatusUncertain}[rng.IntN(4)]
					if _, err := f.g.CallFinish(f.ctx, f.run, id, gitguard.FinishOptions{Status: st}); err != nil {
						t.Fatal(err)
					}
					finished = append(finished, id)
				case k == 4: // a whole-workspace call
					n++
					id := record.CallID(fmt.Sprintf("c%d", n))
					if _, err := f.g.CallStart(f.ctx, f.run, gitguard.CallOptions{CallID: id, Tool: "run_command"}); err != nil {
						t.Fatal(err)
					}
					edit(pick())
					if _, err := f.g.CallFinish(f.ctx, f.run, id, gitguard.FinishOptions{}); err != nil {
						t.Fatal(err)
					}
					finished = append(finished, id)
				case k == 5: // undo the newest call in effect
					if _, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{}); err != nil && !errors.Is(err, gitguard.ErrNothingToUndo) {
						t.Fatal(err)
					}
				case k == 6 && len(finished) > 0: // undo a named call
					id := finished[rng.IntN(len(finished))]
					if _, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{Call: id, Force: true}); err != nil && !errors.Is(err, gitguard.ErrNothingToUndo) {
						t.Fatal(err)
					}
				case k == 7:
					if _, err := f.g.Redo(f.ctx, f.run, gitguard.UndoOptions{}); err != nil && !errors.Is(err, gitguard.ErrNothingToUndo) {
						t.Fatal(err)
					}
				case k == 8 && len(open) > 0: // an open call finishes, at times after resume declared it dead
					id := open[0]
					open = open[1:]
					if rng.IntN(2) == 0 {
						if _, err := f.g.Resume(f.ctx, f.run, gitguard.ResumeOptions{}); err != nil {
							t.Fatal(err)
						}
						compareIndex(t, f, step)
						for _, o := range open { // resume declared them dead too
							if _, err := f.g.CallFinish(f.ctx, f.run, o, gitguard.FinishOptions{}); err != nil {
								t.Fatal(err)
							}
							finished = append(finished, o)
						}
						open = nil
						seen["late finish"] = true
					}
					if _, err := f.g.CallFinish(f.ctx, f.run, id, gitguard.FinishOptions{}); err != nil {
						t.Fatal(err)
					}
					finished = append(finished, id)
				case k == 9: // the user edits, and another run comes and goes
					edit(pick()[:1])
					other := record.RunID(fmt.Sprintf("other-%d", step))
					if _, _, err := f.g.Snapshot(f.ctx, other, gitguard.CheckpointOptions{}); err != nil {
						t.Fatal(err)
					}
					if _, err := f.g.Prune(f.ctx, gitguard.PruneOptions{Runs: []record.RunID{other}}); err != nil {
						t.Fatal(err)
					}
				}
				compareIndex(t, f, step)
			}
			full, err := gitguard.StoreOf(f.g).ReadRun(f.ctx, f.run)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range full.Calls {
				l := &c.Ledger
				seen["undo"] = seen["undo"] || l.ToolName == gitguard.ToolUndo
				seen["redo"] = seen["redo"] || l.ToolName == gitguard.ToolRedo
				seen["undone"] = seen["undone"] || l.UndoneBy != ""
				seen[string(l.Status)] = true
				seen["open"] = seen["open"] || l.Status == record.StatusStarted
				seen["head moved"] = seen["head moved"] || l.Head.Moved()
			}
			out := f.repo.Git("fsck", "--strict", "--no-dangling")
			if strings.TrimSpace(out) != "" {
				t.Errorf("git fsck --strict: %s", out)
			}
		})
	}
}

// compareIndex checks the run index of the tip against a full read, and
// status and undo planning with and without it.
func compareIndex(t *testing.T, f *fixture, step int) {
	t.Helper()
	st := gitguard.StoreOf(f.g)
	full, err := st.ReadRun(f.ctx, f.run)
	if err != nil {
		t.Fatal(err)
	}
	head, err := st.ReadRunCalls(f.ctx, f.run)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := st.PathIndex(head)
	if err != nil {
		t.Fatal(err)
	}
	if want := patchstore.IndexedPostings(full); !reflect.DeepEqual(idx, want) {
		t.Fatalf("step %d: path index\n%v\nfull read\n%v", step, idx, want)
	}
	entries, err := st.LedgerEntries(head)
	if err != nil {
		t.Fatal(err)
	}
	var want []record.LedgerEntry
	for _, c := range full.Calls {
		want = append(want, c.Ledger)
	}
	gitguard.OrderEntries(entries)
	gitguard.OrderEntries(want)
	if !reflect.DeepEqual(entries, want) {
		t.Fatalf("step %d: ledger entries from the index differ from the calls' records", step)
	}
	var order []patchstore.Posting
	err = st.CallsNewestFirst(head, func(p patchstore.Posting) (bool, error) { order = append(order, p); return true, nil })
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(order)
	if want := patchstore.ScanOrder(full); !slices.Equal(order, want) {
		t.Fatalf("step %d: calls by finish from the index\n%v\nfull read\n%v", step, order, want)
	}
	heads, err := st.HeadMoveCalls(head)
	if err != nil {
		t.Fatal(err)
	}
	var wantHeads []record.CallID
	for id, c := range full.Calls {
		if c.Ledger.Head.Moved() {
			wantHeads = append(wantHeads, id)
		}
	}
	slices.Sort(wantHeads)
	if !slices.Equal(heads, wantHeads) {
		t.Fatalf("step %d: HEAD moves %v, full read %v", step, heads, wantHeads)
	}

	type answers struct {
		Status *gitguard.StatusReport
		Plain  *gitguard.UndoResult
		PlainE string
		Named  []*gitguard.UndoResult
		NamedE []string
		Redo   *gitguard.UndoResult
		RedoE  string
		To     *gitguard.UndoResult
		ToE    string
	}
	derive := func() answers {
		var a answers
		rep, err := f.g.Status(f.ctx, f.run, gitguard.StatusOptions{Unrecorded: true})
		if err != nil {
			t.Fatal(err)
		}
		a.Status = rep
		a.Plain, err = f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{DryRun: true})
		if err != nil {
			a.PlainE = err.Error()
		}
		// The oldest and the three newest calls, named.
		ids := make([]record.CallID, 0, len(full.Calls))
		for _, c := range gitguard.OrderedCalls(gitguard.NewRun(full)) {
			ids = append(ids, c.Ledger.CallID)
		}
		if len(ids) > 4 {
			ids = append(ids[:1], ids[len(ids)-3:]...)
		}
		for _, id := range ids {
			r, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{Call: id, DryRun: true})
			a.Named = append(a.Named, r)
			if err != nil {
				a.NamedE = append(a.NamedE, err.Error())
			} else {
				a.NamedE = append(a.NamedE, "")
			}
		}
		if a.Redo, err = f.g.Redo(f.ctx, f.run, gitguard.UndoOptions{DryRun: true}); err != nil {
			a.RedoE = err.Error()
		}
		// Everything after the checkpoint half way through the run.
		to, err := f.g.ResolveCheckpoint(f.ctx, f.run, fmt.Sprint(full.Checkpoint.Seq/2+1))
		if err != nil {
			t.Fatal(err)
		}
		if a.To, err = f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{To: &to, DryRun: true}); err != nil {
			a.ToE = err.Error()
		}
		return a
	}
	fromIndex := derive()
	restore := gitguard.SetFullReads(true)
	fromFull := derive()
	restore()
	if !reflect.DeepEqual(fromIndex, fromFull) {
		t.Fatalf("step %d: status or undo planning differ:\nindex %+v\nfull  %+v", step, fromIndex, fromFull)
	}
}

// TestVerifyRunRefusesForgedIndex checks that a fetched run whose run index
// does not match its calls' records is refused: without its index, with
// the index of an earlier checkpoint (which hides the newest call's path),
// with only its order part from an earlier checkpoint, or with an order
// folder named otherwise than the writer names it.
func TestVerifyRunRefusesForgedIndex(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	for i, p := range []string{"a.txt", "b.txt"} {
		id := record.CallID(fmt.Sprint("c", i))
		if _, err := f.g.CallStart(f.ctx, f.run, gitguard.CallOptions{CallID: id, Tool: "edit", Paths: []string{p}}); err != nil {
			t.Fatal(err)
		}
		f.write(p, "changed\n")
		if _, err := f.g.CallFinish(f.ctx, f.run, id, gitguard.FinishOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	st := gitguard.StoreOf(f.g)
	tip, err := st.ReadRun(f.ctx, f.run)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.VerifyRun(f.ctx, f.run, tip.Commit); err != nil {
		t.Fatalf("VerifyRun of the run as recorded: %v", err)
	}
	prevIndex := strings.TrimSpace(f.repo.Git("rev-parse", tip.Checkpoint.Prev.String()+"^{tree}:runindex"))
	// The tip's commit again, with its root tree's runindex replaced.
	forge := func(index string) record.Hash {
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(f.repo.Git("ls-tree", tip.Commit.String())), "\n") {
			if strings.HasSuffix(l, "\trunindex") {
				if index == "" {
					continue
				}
				l = "040000 tree " + index + "\trunindex"
			}
			lines = append(lines, l)
		}
		tree := strings.TrimSpace(gitStdin(t, f.repo.Dir, strings.Join(lines, "\n")+"\n", "mktree"))
		args := []string{"commit-tree", tree, "-m", "forged"}
		for _, p := range strings.Fields(f.repo.Git("log", "-1", "--format=%P", tip.Commit.String())) {
			args = append(args, "-p", p)
		}
		h, err := record.ParseHash(strings.TrimSpace(f.repo.Git(args...)))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	// The tip's index with its order part replaced by the tree order.
	withOrder := func(order string) string {
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(f.repo.Git("ls-tree", tip.Commit.String()+":runindex")), "\n") {
			if strings.HasSuffix(l, "\torder") {
				l = "040000 tree " + order + "\torder"
			}
			lines = append(lines, l)
		}
		return strings.TrimSpace(gitStdin(t, f.repo.Dir, strings.Join(lines, "\n")+"\n", "mktree"))
	}
	// The previous checkpoint's order part misses the newest call, so
	// plain undo would pass over it.
	staleOrder := withOrder(strings.TrimSpace(f.repo.Git("rev-parse", prevIndex+":order")))
	// The tip's order part with its folder named "00", where "0" belongs.
	var renamed []string
	for _, l := range strings.Split(strings.TrimSpace(f.repo.Git("ls-tree", tip.Commit.String()+":runindex/order")), "\n") {
		if strings.HasSuffix(l, "\t0") {
			l += "0"
		}
		renamed = append(renamed, l)
	}
	if !slices.ContainsFunc(renamed, func(l string) bool { return strings.HasSuffix(l, "\t00") }) {
		t.Fatalf("no order folder 0 to rename: %v", renamed)
	}
	badName := withOrder(strings.TrimSpace(gitStdin(t, f.repo.Dir, strings.Join(renamed, "\n")+"\n", "mktree")))
	for name, index := range map[string]string{"no index": "", "stale index": prevIndex, "stale order": staleOrder, "order folder misnamed": badName} {
		err := st.VerifyRun(f.ctx, f.run, forge(index))
		if !errors.Is(err, record.ErrCorrupt) {
			t.Errorf("%s: VerifyRun = %v, want ErrCorrupt", name, err)
		}
	}
	f.checkInvariant1()
}

func gitStdin(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}
