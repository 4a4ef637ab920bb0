package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
)

// fleet is a bare repository served over smart HTTP and clones of it that
// play the machines.
type fleet struct {
	t      *testing.T
	root   string
	url    string // of the served repository
	origin string // a clone the others copy, with one commit pushed
}

func newFleet(t *testing.T) *fleet {
	gittest.RequireGit(t)
	home := gittest.Seal(t)
	root := t.TempDir()
	f := &fleet{t: t, root: root}
	f.git(root, "init", "-q", "--bare", "-b", "main", filepath.Join(root, "srv", "remote.git"))
	srv, err := gittest.StartHTTP(filepath.Join(root, "srv"), gittest.Env(home))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("stop the server: %v", err)
		}
	})
	f.url = srv.URL + "/remote.git"
	f.origin = filepath.Join(root, "origin")
	f.git(root, "init", "-q", "-b", "main", f.origin)
	gittest.WriteFile(t, filepath.Join(f.origin, "a.txt"), "a\n")
	f.git(f.origin, "add", "-A")
	f.git(f.origin, "commit", "-qm", "init")
	f.git(f.origin, "remote", "add", "origin", f.url)
	f.git(f.origin, "push", "-q", "origin", "main")
	return f
}

func (f *fleet) git(dir string, args ...string) string {
	f.t.Helper()
	out, err := git.Run(context.Background(), dir, args...)
	if err != nil {
		f.t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// machine makes a clone named name whose origin is the served repository.
// It clones the local origin (no HTTP round trip) and points it at the URL.
func (f *fleet) machine(name string) string {
	dir := filepath.Join(f.root, name)
	f.git(f.root, "clone", "-q", f.origin, dir)
	f.git(dir, "remote", "set-url", "origin", f.url)
	return dir
}

func (f *fleet) serverGit(args ...string) string {
	return f.git(filepath.Join(f.root, "srv", "remote.git"), args...)
}

// parallel runs fn(i) for i < n at once and waits, at most limit.
func parallel(t *testing.T, n int, limit time.Duration, fn func(i int)) {
	t.Helper()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(i)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("%d concurrent pushes still running after %v", n, limit)
	}
}

// TestFleetPushHTTP: 20 machines push their own runs to one repository over
// HTTP at the same time. Every run arrives whole: git fsck --strict on the
// server, each remote tip is the pusher's, and a fresh clone fetches and
// verifies all 20.
func TestFleetPushHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 20 pushes at once")
	}
	const machines = 20
	f := newFleet(t)
	dirs := make([]string, machines)
	tips := make([]string, machines)
	for i := range dirs {
		dirs[i] = f.machine(fmt.Sprintf("m%02d", i))
		run := fmt.Sprintf("run-%02d", i)
		mustRun(t, dirs[i], "start", "--run", run)
		gittest.WriteFile(t, filepath.Join(dirs[i], fmt.Sprintf("m%02d.txt", i)), fmt.Sprintf("machine %d\n", i))
		mustRun(t, dirs[i], "call", "start", "c1", "--tool", "Write", "--", fmt.Sprintf("m%02d.txt", i))
		mustRun(t, dirs[i], "call", "finish", "c1")
		mustRun(t, dirs[i], "finish")
		tips[i] = f.git(dirs[i], "rev-parse", "refs/agent-checkpoints/runs/"+run)
	}
	outs := make([]string, machines)
	codes := make([]int, machines)
	parallel(t, machines, 3*time.Minute, func(i int) {
		out, err := gitguardCmd(t, dirs[i], nil, "push")
		outs[i], codes[i] = out, exitOf(err)
	})
	for i := range dirs {
		if codes[i] != 0 {
			t.Errorf("machine %d: push exit %d:\n%s", i, codes[i], outs[i])
		}
	}
	f.serverGit("fsck", "--strict", "--no-progress")
	refs := strings.Split(f.serverGit("for-each-ref", "--format=%(objectname) %(refname)", "refs/agent-checkpoints/"), "\n")
	if len(refs) != machines {
		t.Fatalf("server has %d run refs, want %d:\n%s", len(refs), machines, strings.Join(refs, "\n"))
	}
	for i := range dirs {
		want := fmt.Sprintf("%s refs/agent-checkpoints/runs/run-%02d", tips[i], i)
		if refs[i] != want {
			t.Errorf("server ref %q, want %q", refs[i], want)
		}
	}
	check := f.machine("check")
	out := mustRun(t, check, "fetch")
	if n := strings.Count(out, " new "); n != machines {
		t.Errorf("fetch into a fresh clone: %d new runs, want %d:\n%s", n, machines, out)
	}
	f.git(check, "fsck", "--strict", "--no-progress")
}

// TestFleetOneRunFiveWriters: five machines write the same run and push at
// once, round after round. Exactly one push wins each round; the others
// are refused (exit 1, naming both tips), publish their checkpoint with
// push --as, and take the winner's run. Nothing is lost: every round's
// checkpoints are on the server, in the run or in a run that names it.
func TestFleetOneRunFiveWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("starts concurrent pushes")
	}
	const writers, rounds = 5, 3
	f := newFleet(t)
	dirs := make([]string, writers)
	for i := range dirs {
		dirs[i] = f.machine(fmt.Sprintf("w%d", i))
	}
	mustRun(t, dirs[0], "start", "--run", "shared")
	mustRun(t, dirs[0], "finish")
	mustRun(t, dirs[0], "push")
	for _, d := range dirs[1:] {
		mustRun(t, d, "fetch")
	}
	var published []string
	for round := 0; round < rounds; round++ {
		label := func(i int) string { return fmt.Sprintf("round-%d-writer-%d", round, i) }
		for i, d := range dirs {
			mustRun(t, d, "snapshot", "--run", "shared", "--label", label(i))
		}
		outs := make([]string, writers)
		codes := make([]int, writers)
		parallel(t, writers, 2*time.Minute, func(i int) {
			out, err := gitguardCmd(t, dirs[i], nil, "push", "--run", "shared")
			outs[i], codes[i] = out, exitOf(err)
		})
		var winners []int
		for i := range dirs {
			switch codes[i] {
			case 0:
				winners = append(winners, i)
			case exitFound:
				if !strings.Contains(outs[i], "run shared: the remote's copy moved on: the remote is at ") {
					t.Errorf("round %d, writer %d refused without naming the tips:\n%s", round, i, outs[i])
				}
			default:
				t.Fatalf("round %d, writer %d: push exit %d:\n%s", round, i, codes[i], outs[i])
			}
		}
		if len(winners) != 1 {
			t.Fatalf("round %d: %d pushes won, want exactly 1: %v", round, len(winners), winners)
		}
		win := winners[0]
		serverTip := f.serverGit("rev-parse", "refs/agent-checkpoints/runs/shared")
		if local := f.git(dirs[win], "rev-parse", "refs/agent-checkpoints/runs/shared"); local != serverTip {
			t.Fatalf("round %d: winner %d has %s, server %s", round, win, local, serverTip)
		}
		for i, d := range dirs {
			if i == win {
				continue
			}
			as := fmt.Sprintf("shared-r%d-w%d", round, i)
			mustRun(t, d, "push", "--as", as, "--run", "shared")
			published = append(published, as)
			mustRun(t, d, "fetch", "--force", "--run", "shared")
			if got := f.git(d, "rev-parse", "refs/agent-checkpoints/runs/shared"); got != serverTip {
				t.Fatalf("round %d: writer %d did not take the winner's run: %s, want %s", round, i, got, serverTip)
			}
		}
	}
	f.serverGit("fsck", "--strict", "--no-progress")
	// Every round's checkpoint of every writer is on the server.
	check := f.machine("check")
	mustRun(t, check, "fetch")
	var labels []string
	for _, run := range append([]string{"shared"}, published...) {
		out := mustRun(t, check, "log", "--run", run, "-n", "1")
		labels = append(labels, strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), " ")+1:]))
	}
	log := mustRun(t, check, "log", "--run", "shared")
	for round := 0; round < rounds; round++ {
		n := 0
		for i := 0; i < writers; i++ {
			l := fmt.Sprintf("round-%d-writer-%d", round, i)
			if strings.Contains(log, l) {
				n++
				continue
			}
			found := false
			for _, got := range labels {
				found = found || got == l
			}
			if !found {
				t.Errorf("round %d: checkpoint %q of writer %d is on the server in no run", round, l, i)
			}
		}
		if n != 1 {
			t.Errorf("round %d: %d writers' checkpoints in run shared, want 1:\n%s", round, n, log)
		}
	}
	sort.Strings(published)
	if len(published) != rounds*(writers-1) {
		t.Errorf("%d runs published with --as, want %d", len(published), rounds*(writers-1))
	}
}
