package gitguard_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// Git maintenance at any moment cannot hurt a run: three writers, each
// with its own Guard and run, record 30 calls each (and a few
// whole-workspace snapshots) while a loop runs git gc --prune=now, or git
// repack -adf, beside them. Those delete every object not reachable from
// a ref when they walk the refs, including what a checkpoint is about to
// name. Afterwards git fsck finds nothing missing, every call reported
// succeeded is in its run's ledger with its patch, git gc succeeds, and
// the user's state is untouched.
func TestCallsBesideGitGC(t *testing.T) {
	testCallsBeside(t, "gc -q --prune=now")
}

func TestCallsBesideGitRepack(t *testing.T) {
	testCallsBeside(t, "repack -q -a -d -f")
}

// The other maintenance commands, in turn: packing the refs the writers
// move, and git maintenance run (its gc task). A git prune --expire=now
// of its own is not here: it leaves no mark of its run to wait for, and
// a prune that walked the refs before a checkpoint's ref moved can delete
// its objects after every check (docs/GIT-INTEGRATION.md says so; fsck
// --repair is the way back).
func TestCallsBesideGitMaintenance(t *testing.T) {
	testCallsBeside(t, "pack-refs --all", "maintenance run")
}

// transientGC are what git gc says when it starts in the race described
// in testCallsBeside.
var transientGC = []string{"does not point to a valid object", "bad tree object", "bad object", "fatal: unable to read "}

// testCallsBeside runs the writers beside a loop of the git commands
// given (each a space-separated command line), in turn.
func testCallsBeside(t *testing.T, maintenance ...string) {
	gittest.RequireGit(t)
	const writers, calls = 3, 30
	what := "git " + strings.Join(maintenance, ", git ")
	r := gittest.New(t)
	for w := 0; w < writers; w++ {
		r.Write(fmt.Sprintf("w%d.txt", w), "start\n")
	}
	r.Write("shared/readme", "not touched\n")
	r.Commit("init")
	// git gc expires reflog entries older than 90 days, and the sealed
	// environment dates commits in 2023: expire them before the user's
	// state is taken, so that what is compared is what gitguard could touch.
	r.Git("gc", "-q")
	user, err := gittest.UserState(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// The maintenance loop, bounded: it stops when the writers are done
	// or after a minute, and counts the runs that completed meanwhile.
	var done atomic.Bool
	var ran atomic.Int32
	var mu sync.Mutex
	var failures []string
	loop := make(chan struct{})
	go func() {
		defer close(loop)
		deadline := time.Now().Add(time.Minute)
		for i := 0; !done.Load() && time.Now().Before(deadline); i++ {
			cmd := exec.Command("git", strings.Fields(maintenance[i%len(maintenance)])...)
			cmd.Dir = r.Dir
			if out, err := cmd.CombinedOutput(); err != nil {
				mu.Lock()
				failures = append(failures, fmt.Sprintf("%v: %s", err, out))
				mu.Unlock()
				continue
			}
			ran.Add(1)
		}
	}()

	var wg sync.WaitGroup
	var succeeded sync.Map // call id → file it changed
	for w := 0; w < writers; w++ {
		g, err := gitguard.Open(ctx, r.Dir, gitguard.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		wg.Add(1)
		go func(w int, g *gitguard.Guard) {
			defer wg.Done()
			run := record.RunID(fmt.Sprintf("w%d", w))
			file := fmt.Sprintf("w%d.txt", w)
			retry := func(step string, f func() error) bool {
				for try := 0; ; try++ {
					err := f()
					if errors.Is(err, gitguard.ErrBusy) && try < 30 {
						continue
					}
					if err != nil {
						t.Errorf("writer %d: %s: %v", w, step, err)
						return false
					}
					return true
				}
			}
			for c := 0; c < calls; c++ {
				id := record.CallID(fmt.Sprintf("w%d-c%02d", w, c))
				if !retry("start "+string(id), func() error {
					_, err := g.CallStart(ctx, run, gitguard.CallOptions{CallID: id, Tool: "edit", Paths: []string{file}})
					return err
				}) {
					return
				}
				gittest.WriteFile(t, r.Dir+"/"+file, fmt.Sprintf("writer %d call %d\n", w, c))
				if !retry("finish "+string(id), func() error {
					_, err := g.CallFinish(ctx, run, id, gitguard.FinishOptions{})
					return err
				}) {
					return
				}
				succeeded.Store(id, file)
				if c%10 == 9 && !retry("snapshot", func() error {
					_, _, err := g.Snapshot(ctx, run, gitguard.CheckpointOptions{Label: string(id)})
					return err
				}) {
					return
				}
			}
		}(w, g)
	}
	wg.Wait()
	concurrent := ran.Load()
	done.Store(true)
	<-loop
	t.Logf("%s completed %d times beside the writers; %d runs failed", what, concurrent, len(failures))
	if concurrent < 3 {
		t.Errorf("%s completed only %d times while the writers ran: the race was not exercised", what, concurrent)
	}
	for _, f := range failures {
		// A git gc that starts in the instant between a racing prune
		// deleting an object a checkpoint names and the writer writing it
		// back stops, changing nothing; the next one succeeds. git says so
		// as the ref, a tree or a commit being bad when its walk meets the
		// hole, and, for a blob (which the walk lists without reading), as
		// pack-objects being unable to read it. Anything else is a failure;
		// fsck and every call's record are checked after the loop either way.
		if !slices.ContainsFunc(transientGC, func(s string) bool { return strings.Contains(f, s) }) {
			t.Errorf("%s failed beside the writers: %s", what, f)
		} else {
			t.Logf("transient: %s", f)
		}
	}

	// Nothing missing, by git's own account, and git gc works.
	if out, err := exec.Command("git", "-C", r.Dir, "fsck", "--strict", "--no-dangling").CombinedOutput(); err != nil || strings.Contains(string(out), "missing") {
		t.Fatalf("git fsck: %v\n%s", err, out)
	}
	r.Git("gc", "-q", "--prune=now")

	g, err := gitguard.Open(ctx, r.Dir, gitguard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	n := 0
	for w := 0; w < writers; w++ {
		id := record.RunID(fmt.Sprintf("w%d", w))
		if err := g.VerifyRun(ctx, id); err != nil {
			t.Errorf("run %s does not verify: %v", id, err)
		}
		run, err := g.ReadRun(ctx, id)
		if err != nil {
			t.Fatalf("run %s: %v", id, err)
		}
		for callID, c := range run.Calls {
			file, ok := succeeded.Load(callID)
			if !ok {
				continue
			}
			n++
			if c.Ledger.Status != record.StatusSucceeded || len(c.Patches) != 1 || c.Patches[0].Path != file {
				t.Errorf("call %s: %s with patches %v; want succeeded with a patch of %s", callID, c.Ledger.Status, patchPaths(c), file)
			}
		}
	}
	want := 0
	succeeded.Range(func(any, any) bool { want++; return true })
	if n != want || want != writers*calls {
		t.Errorf("%d of %d succeeded calls are in the ledgers (%d calls made)", n, want, writers*calls)
	}
	after, err := gittest.UserState(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if d := gittest.Diff(user, after); d != "" {
		t.Errorf("user state changed:\n%s", d)
	}
}
