package gitguard_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// ownPackCount counts the packs in the repository (the fixture's repository
// has none of git's own).
func ownPackCount(f *fixture) int {
	f.t.Helper()
	packs, err := filepath.Glob(filepath.Join(f.repo.Dir, ".git", "objects", "pack", "pack-*.idx"))
	if err != nil {
		f.t.Fatal(err)
	}
	return len(packs)
}

// mergedRunIntact checks that git finds nothing missing or broken after
// packs were merged and that the run's ledger still lists its calls, and
// returns the ledger.
func mergedRunIntact(f *fixture, calls int) []*record.Call {
	f.t.Helper()
	if out := f.repo.Git("fsck", "--full", "--strict"); strings.Contains(out, "error") || strings.Contains(out, "missing") {
		f.t.Fatalf("git fsck: %s", out)
	}
	_, ledger, err := f.g.Ledger(f.ctx, f.run)
	if err != nil {
		f.t.Fatal(err)
	}
	if len(ledger) != calls {
		f.t.Fatalf("%d calls in the ledger, want %d", len(ledger), calls)
	}
	return ledger
}

// A tool call's start and finish, which an agent waits on, leave merging
// gitguard's packs to the commands nobody waits on: after ten calls every
// checkpoint's pack is still there; the next snapshot merges them, and git
// reads every call's patch and the whole history afterwards.
func TestCallsLeavePackMergesToSnapshots(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"})
	before := ownPackCount(f)
	const calls = 10
	for i := range calls {
		f.call(record.CallID(fmt.Sprintf("c%02d", i)), []string{"a.txt"}, func() {
			f.write("a.txt", fmt.Sprintf("a\nedit %d\n", i))
		})
	}
	// Each start and each finish writes a pack of its own.
	if got := ownPackCount(f); got < before+2*calls {
		t.Fatalf("%d packs after %d calls (%d before), want every checkpoint's pack kept: calls do not merge below the bound", got, calls, before)
	}
	if _, _, err := f.g.Snapshot(f.ctx, f.run, gitguard.CheckpointOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := ownPackCount(f); got >= 8 {
		t.Fatalf("%d packs after a snapshot, want them merged to fewer than 8", got)
	}
	ledger := mergedRunIntact(f, calls)
	for i, c := range ledger {
		if c.Ledger.Status != record.StatusSucceeded || len(c.Patches) != 1 {
			t.Fatalf("call %d: status %s, %d patches; want succeeded with one patch", i, c.Ledger.Status, len(c.Patches))
		}
		// git reads the patch from the merged pack.
		f.repo.Git("cat-file", "-e", c.Patches[0].PatchRef.String())
	}
	f.checkInvariant1()
}

// Calls alone merge too, once the packs pile past the bound: a long run
// of tool calls and nothing else keeps its packs bounded.
func TestCallsMergePacksPastTheBound(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"})
	const calls = 25 // 50 packs: past the bound once
	most := 0
	for i := range calls {
		f.call(record.CallID(fmt.Sprintf("c%02d", i)), []string{"a.txt"}, func() {
			f.write("a.txt", fmt.Sprintf("a\nedit %d\n", i))
		})
		most = max(most, ownPackCount(f))
	}
	if most > 40 {
		t.Fatalf("%d packs at most during %d calls, want them merged past the bound", most, calls)
	}
	mergedRunIntact(f, calls)
	f.checkInvariant1()
}

// One handle of the repository merging gitguard's packs over and over
// while another records calls, as the watch daemon merges between the hook
// events it records, loses nothing: every call's record and patch is read
// back, git finds nothing missing, and the user's state is untouched.
func TestMergePacksWhileRecording(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"})
	merger, err := gitguard.Open(f.ctx, f.repo.Dir, gitguard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer merger.Close()
	stop, merged := make(chan struct{}), make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				merged <- nil
				return
			default:
			}
			if err := merger.MergePacks(); err != nil {
				merged <- err
				return
			}
		}
	}()
	const calls = 30
	most := 0
	for i := range calls {
		f.call(record.CallID(fmt.Sprintf("c%02d", i)), []string{"a.txt"}, func() {
			f.write("a.txt", fmt.Sprintf("a\nedit %d\n", i))
		})
		most = max(most, ownPackCount(f))
	}
	close(stop)
	if err := <-merged; err != nil {
		t.Fatalf("merging beside the calls: %v", err)
	}
	// The calls alone let 31 packs pile up before they merge.
	if most >= 20 {
		t.Fatalf("%d packs at most during %d calls: the merges beside them did not run", most, calls)
	}
	for i, c := range mergedRunIntact(f, calls) {
		if c.Ledger.Status != record.StatusSucceeded || len(c.Patches) != 1 {
			t.Fatalf("call %d: status %s, %d patches; want succeeded with one patch", i, c.Ledger.Status, len(c.Patches))
		}
		f.repo.Git("cat-file", "-e", c.Patches[0].PatchRef.String())
	}
	f.checkInvariant1()
}
