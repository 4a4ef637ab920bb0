package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// exitOf returns the exit code of a gitguardCmd error (0 for nil, -1 when
// killed by a signal).
func exitOf(err error) int {
	var ee *exec.ExitError
	if err == nil {
		return 0
	}
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -2
}

// maxBusyRetries bounds the retries of a command that exited 4 (busy).
const maxBusyRetries = 30

// runRetryBusy runs gitguard, running it again while it exits 4 "run is
// busy" (nothing was recorded then). It returns the output, the final exit
// code and how many busy exits it saw.
func runRetryBusy(t *testing.T, dir string, args ...string) (string, int, int) {
	busy := 0
	for {
		out, err := gitguardCmd(t, dir, nil, args...)
		code := exitOf(err)
		if code != exitBusy || busy >= maxBusyRetries {
			return out, code, busy
		}
		if !strings.Contains(out, "busy") && !strings.Contains(out, "changed concurrently") {
			t.Errorf("exit 4 without a busy message:\n%s", out)
		}
		busy++
	}
}

// TestConcurrentCalls runs several gitguard processes at once on one run,
// each recording its own calls (distinct ids, one file each) and
// whole-workspace snapshots. No checkpoint may be lost: every call ends in
// the ledger, succeeded, with exactly its patch; the chain verifies and
// git fsck is clean.
func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	const workers, callsEach = 5, 3
	r := gittest.New(t)
	for i := 0; i < workers; i++ {
		r.Write(fmt.Sprintf("w%d.txt", i), "start\n")
	}
	r.Commit("init")
	mustRun(t, r.Dir, "start", "--run", "busy")
	user, err := gittest.UserState(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	busyExits := 0
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			file := fmt.Sprintf("w%d.txt", i)
			step := func(args ...string) bool {
				out, code, busy := runRetryBusy(t, r.Dir, args...)
				mu.Lock()
				busyExits += busy
				mu.Unlock()
				if code != 0 {
					t.Errorf("worker %d: gitguard %s: exit %d\n%s", i, strings.Join(args, " "), code, out)
					return false
				}
				return true
			}
			for j := 0; j < callsEach; j++ {
				id := fmt.Sprintf("w%d-c%d", i, j)
				if !step("call", "start", id, "--tool", "edit", "--", file) {
					return
				}
				gittest.WriteFile(t, r.Dir+"/"+file, fmt.Sprintf("worker %d call %d\n", i, j))
				if !step("call", "finish", id) {
					return
				}
				if !step("snapshot", "--label", id) {
					return
				}
			}
		}(i)
	}
	wg.Wait()
	t.Logf("%d processes, %d calls, %d busy exits retried", workers, workers*callsEach, busyExits)

	ctx := context.Background()
	g, err := gitguard.Open(ctx, r.Dir, gitguard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.VerifyRun(ctx, "busy"); err != nil {
		t.Fatalf("run does not verify: %v", err)
	}
	run, err := g.ReadRun(ctx, "busy")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < workers; i++ {
		for j := 0; j < callsEach; j++ {
			id := fmt.Sprintf("w%d-c%d", i, j)
			c := run.Calls[record.CallID(id)]
			if c == nil {
				t.Errorf("call %s lost", id)
				continue
			}
			if c.Ledger.Status != record.StatusSucceeded || len(c.Patches) != 1 {
				t.Errorf("call %s: status %s, %d patch(es); want succeeded with 1", id, c.Ledger.Status, len(c.Patches))
				continue
			}
			want := odb.HashObject(odb.TypeBlob, []byte(fmt.Sprintf("worker %d call %d\n", i, j)))
			if p := c.Patches[0]; p.Path != fmt.Sprintf("w%d.txt", i) || p.AfterHash != want {
				t.Errorf("call %s: patch %s -> %s, want w%d.txt -> %s", id, p.Path, p.AfterHash.Short(), i, want.Short())
			}
		}
	}
	// 1 start + per call: start, finish, snapshot.
	if want := 1 + 3*workers*callsEach; run.Checkpoint.Seq != want {
		t.Errorf("chain has %d checkpoints, want %d (one per successful command)", run.Checkpoint.Seq, want)
	}
	if after, _ := gittest.UserState(r.Dir, false); after != user {
		t.Errorf("invariant 1 broken:\n%s", gittest.Diff(user, after))
	}
}

// TestGitBesideGitguard runs git commit, checkout, stash and gc in a loop
// while gitguard snapshots and records whole-workspace calls on the same
// repository. git's own commands must all succeed (they run one at a time,
// so an index.lock collision could only come from gitguard, which must
// never take it); gitguard's commands succeed or fail cleanly (busy, or a
// usage error naming the state), never with an integrity or internal
// failure; fsck is clean at the end and the run verifies.
func TestGitBesideGitguard(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	if testing.Short() {
		t.Skip("runs git and gitguard side by side for a while")
	}
	const iterations = 20
	r := gittest.New(t)
	r.Write("tracked.txt", "0\n")
	r.Write("agent.txt", "0\n")
	r.Commit("init")
	r.Git("config", "gc.auto", "0") // gc only when the loop says so
	mustRun(t, r.Dir, "start", "--run", "side")

	ctx := context.Background()
	gitStep := func(args ...string) error {
		out, err := git.Run(ctx, r.Dir, args...)
		if err != nil {
			return fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	stop := make(chan struct{})
	var gitErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(stop)
		for i := 1; i <= iterations && gitErr == nil; i++ {
			gittest.WriteFile(t, r.Dir+"/tracked.txt", fmt.Sprintf("%d\n", i))
			steps := [][]string{
				{"add", "tracked.txt"},
				{"commit", "-q", "-m", fmt.Sprintf("user commit %d", i)},
				{"checkout", "-q", "-b", fmt.Sprintf("topic%d", i)},
				{"checkout", "-q", "main"},
			}
			for _, s := range steps {
				if gitErr = gitStep(s...); gitErr != nil {
					return
				}
			}
			gittest.WriteFile(t, r.Dir+"/tracked.txt", fmt.Sprintf("%d stashed\n", i))
			for _, s := range [][]string{{"stash", "push", "-q", "--", "tracked.txt"}, {"stash", "pop", "-q"}, {"checkout", "-q", "--", "tracked.txt"}} {
				if gitErr = gitStep(s...); gitErr != nil {
					return
				}
			}
			if i%5 == 0 {
				if gitErr = gitStep("gc", "--quiet"); gitErr != nil {
					return
				}
			}
		}
	}()

	codes := map[int]int{}
	var bad []string
	for n := 0; n < 500; n++ { // bounded; the git loop normally ends it
		select {
		case <-stop:
			n = 500
			continue
		default:
		}
		id := fmt.Sprintf("g%d", n)
		for _, args := range [][]string{
			{"snapshot"},
			{"call", "start", id, "--tool", "bash"},
			nil, // the agent's edit
			{"call", "finish", id},
			{"status"},
		} {
			if args == nil {
				gittest.WriteFile(t, r.Dir+"/agent.txt", fmt.Sprintf("agent %d\n", n))
				continue
			}
			out, code, _ := runRetryBusy(t, r.Dir, args...)
			codes[code]++
			switch code {
			case exitOK, exitFound:
			case exitUsage:
				// Clean refusals are allowed, but say which.
				bad = append(bad, fmt.Sprintf("gitguard %s exited 2 (allowed):\n%s", strings.Join(args, " "), out))
			default:
				t.Errorf("gitguard %s: exit %d beside git\n%s", strings.Join(args, " "), code, out)
			}
		}
	}
	wg.Wait()
	if gitErr != nil {
		t.Fatalf("git failed beside gitguard: %v", gitErr)
	}
	t.Logf("gitguard exit codes beside git: %v", codes)
	for _, b := range bad {
		t.Log(b)
	}
	if out, err := git.Run(ctx, r.Dir, "fsck", "--strict", "--no-progress"); err != nil {
		t.Fatalf("git fsck: %v\n%s", err, out)
	}
	g, err := gitguard.Open(ctx, r.Dir, gitguard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.VerifyRun(ctx, "side"); err != nil {
		t.Fatalf("run does not verify after git gc and friends: %v", err)
	}
	// Every finished call's blobs survived git gc (they are reachable from the run ref).
	run, err := g.ReadRun(ctx, "side")
	if err != nil {
		t.Fatal(err)
	}
	for id, c := range run.Calls {
		for _, p := range c.Patches {
			for _, h := range []record.Hash{p.BeforeHash, p.AfterHash, p.PatchRef} {
				if !h.IsZero() && !gittest.HasObject(r.Dir, h) {
					t.Errorf("call %s: object %s of %s lost", id, h.Short(), p.Path)
				}
			}
		}
	}
}
