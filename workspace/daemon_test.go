package workspace

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/gittest"
)

// startDaemon serves a daemon for the repository at dir the way `gitguard
// watch` does, and stops it when the test ends.
func startDaemon(t *testing.T, dir string) *Daemon {
	t.Helper()
	d := openWS(t, dir).NewDaemon(nil)
	if err := d.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- d.Serve(context.Background(), 0) }()
	t.Cleanup(func() {
		d.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return d
}

func useDaemon(o *Options) { o.UseDaemon = true }

// fullWalk is the snapshot a process without any daemon takes.
func fullWalk(t *testing.T, dir string) *Snapshot {
	t.Helper()
	s, err := openWS(t, dir).Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sameSnapshot fails unless got records what want does.
func sameSnapshot(t *testing.T, w *Workspace, what string, got, want *Snapshot) {
	t.Helper()
	if got.Worktree != want.Worktree || got.IndexTree != want.IndexTree || got.Head != want.Head {
		diff, _ := w.db.DiffTrees(want.Worktree, got.Worktree)
		t.Fatalf("%s: got work tree %s index %s head %v, the full walk %s %s %v; differences: %+v",
			what, got.Worktree, got.IndexTree, got.Head, want.Worktree, want.IndexTree, want.Head, diff)
	}
}

// TestDaemonServesOtherProcesses: a client workspace (another process, as
// far as the daemon knows) gets every snapshot from the daemon, each equal
// to a full walk, and all but the arming one come from the watcher.
func TestDaemonServesOtherProcesses(t *testing.T) {
	r := watchRepo(t)
	d := startDaemon(t, r.Dir)
	listening.Delete(d.sockPath) // asked through the socket, as from another process
	client := openWS(t, r.Dir, useDaemon)
	ctx := context.Background()
	before, err := gittest.UserState(r.Dir, true)
	if err != nil {
		t.Fatal(err)
	}
	first, err := client.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, client, "first", first, fullWalk(t, r.Dir))
	after, err := gittest.UserState(r.Dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Fatalf("the daemon changed the user's state:\n%s", gittest.Diff(before, after))
	}
	servedRounds(t, r, d, client)
}

// servedRounds makes each of changeRounds' changes and checks that the
// client's snapshot after it equals a full walk and is complete, and that
// the daemon answered every snapshot, the client's first (taken before)
// from the walk that armed its watcher and all the others from the
// watcher. It returns how many it answered.
func servedRounds(t *testing.T, r *gittest.Repo, d *Daemon, client *Workspace) int64 {
	t.Helper()
	rounds := changeRounds(t, r)
	for _, round := range rounds {
		round.do()
		got, err := client.Snapshot(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", round.name, err)
		}
		sameSnapshot(t, client, round.name, got, fullWalk(t, r.Dir))
		gittest.CheckComplete(t, r.Dir, got.Worktree)
	}
	st := d.Status()
	if st.Requests != int64(len(rounds)+1) || st.Walks != 1 || st.Watched != int64(len(rounds)) {
		t.Fatalf("daemon status %+v: want %d requests, 1 walk, the rest from the watcher", st, len(rounds)+1)
	}
	return st.Requests
}

// TestDaemonServesItsOwnProcess: a workspace opened in the process that
// serves the daemon (the daemon's hook handler opens one per event) asks
// it directly: with the socket gone, its snapshots still come from the
// watcher, equal to a full walk, and so do the change times.
func TestDaemonServesItsOwnProcess(t *testing.T) {
	r := watchRepo(t)
	d := startDaemon(t, r.Dir)
	if err := os.Remove(d.sockPath); err != nil {
		t.Fatal(err)
	}
	client := openWS(t, r.Dir, useDaemon)
	ctx := context.Background()
	if _, err := client.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	answered := servedRounds(t, r, d, client)
	if _, err := client.ChangeTimes(ctx, []string{"a.txt"}); err != nil {
		t.Fatalf("change times from the daemon of this process: %v", err)
	}
	d.Close()
	// Once closed, it is asked no more: the client walks.
	if _, err := client.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	if st := d.Status(); st.Requests != answered {
		t.Fatalf("a closed daemon was asked: %+v", st)
	}
}

// TestDaemonOverflowWalks overflows the kernel's inotify queue for real
// while a tracked file changes: the daemon must notice, walk, and answer
// with the change.
func TestDaemonOverflowWalks(t *testing.T) {
	limit := 16384
	if data, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			limit = n
		}
	}
	r := watchRepo(t)
	d := startDaemon(t, r.Dir)
	client := openWS(t, r.Dir, useDaemon)
	ctx := context.Background()
	if _, err := client.Snapshot(ctx); err != nil { // arms the watcher
		t.Fatal(err)
	}
	wt := d.wt
	// Holding the watcher's lock stops its event loop, so fsnotify stops
	// reading the inotify descriptor and the kernel's queue fills up.
	wt.mu.Lock()
	spam := filepath.Join(r.Dir, "src", "p0")
	// A create and a delete each, and a margin for the events fsnotify
	// holds in its read buffer.
	for i := 0; i < limit/2+2000; i++ {
		name := filepath.Join(spam, fmt.Sprintf("spam-%d", i))
		if err := os.WriteFile(name, nil, 0o644); err != nil {
			wt.mu.Unlock()
			t.Fatal(err)
		}
		if err := os.Remove(name); err != nil {
			wt.mu.Unlock()
			t.Fatal(err)
		}
	}
	r.Write("src/p1/f1.go", "changed while the queue overflowed\n")
	wt.mu.Unlock()
	waitFor(t, "the overflow to be reported", func() bool {
		wt.mu.Lock()
		defer wt.mu.Unlock()
		return wt.broken != nil
	})
	got, err := client.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, client, "after the overflow", got, fullWalk(t, r.Dir))
	st := d.Status()
	if st.Walks != 2 || !strings.Contains(st.LastWalk, "overflow") {
		t.Fatalf("daemon status %+v: want a second walk because of the overflow", st)
	}
	// The new watcher vouches again.
	r.Write("src/p1/f1.go", "and once more\n")
	got, err = client.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, client, "after re-arming", got, fullWalk(t, r.Dir))
	if st := d.Status(); st.Walks != 2 || st.Watched != 1 {
		t.Fatalf("daemon status %+v: want the re-armed watcher to answer", st)
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestDaemonRestart: changes made while no daemon runs, or while a killed
// daemon's socket is left behind, are never missed: the client walks, and
// a new daemon arms itself with a walk.
func TestDaemonRestart(t *testing.T) {
	r := watchRepo(t)
	client := openWS(t, r.Dir, useDaemon)
	ctx := context.Background()
	check := func(what string) {
		t.Helper()
		got, err := client.Snapshot(ctx)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		sameSnapshot(t, client, what, got, fullWalk(t, r.Dir))
	}

	d1 := openWS(t, r.Dir).NewDaemon(nil)
	if err := d1.Listen(); err != nil {
		t.Fatal(err)
	}
	go d1.Serve(context.Background(), 0)
	check("first daemon")
	r.Write("src/p0/f0.go", "seen by the first daemon\n")
	check("first daemon, a change")
	d1.Close()
	if _, err := os.Lstat(client.DaemonSocket()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket after Close: %v, want it removed", err)
	}

	r.Write("src/p0/f0.go", "changed while no daemon ran\n")
	check("no daemon")

	// A daemon killed with -9 leaves its socket: nobody answers on it.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: client.DaemonSocket(), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	r.Write("src/p1/f1.go", "changed beside a dead daemon's socket\n")
	check("stale socket")
	if _, err := client.DaemonStatus(ctx, false); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("status beside a stale socket: %v, want ErrNoDaemon", err)
	}

	d2 := startDaemon(t, r.Dir)
	r.Write("docs/new.md", "after the restart\n")
	check("second daemon")
	r.Remove("docs/new.md")
	check("second daemon, a change")
	if st := d2.Status(); st.Walks != 1 || st.Watched != 1 {
		t.Fatalf("second daemon %+v: want one arming walk, then the watcher", st)
	}
}

// TestDaemonOnePerWorkTree: a second daemon is refused while the first
// serves, and takes over once it stopped.
func TestDaemonOnePerWorkTree(t *testing.T) {
	r := watchRepo(t)
	d1 := openWS(t, r.Dir).NewDaemon(nil)
	if err := d1.Listen(); err != nil {
		t.Fatal(err)
	}
	go d1.Serve(context.Background(), 0)
	d2 := openWS(t, r.Dir).NewDaemon(nil)
	if err := d2.Listen(); !errors.Is(err, ErrDaemonRunning) {
		t.Fatalf("second Listen: %v, want ErrDaemonRunning", err)
	}
	d2.Close()
	client := openWS(t, r.Dir, useDaemon)
	st, err := client.DaemonStatus(context.Background(), true)
	if err != nil || st.PID != os.Getpid() {
		t.Fatalf("stop: %+v, %v", st, err)
	}
	d1.Close()
	d3 := openWS(t, r.Dir).NewDaemon(nil)
	if err := d3.Listen(); err != nil {
		t.Fatalf("Listen after the first daemon stopped: %v", err)
	}
	d3.Close()
}

// TestDaemonRefusesOtherConfiguration: a client whose options differ from
// the daemon's (another exclude glob here) must not get the daemon's
// snapshot; it walks with its own options. A daemon that can reopen its
// workspace adopts the new configuration instead.
func TestDaemonRefusesOtherConfiguration(t *testing.T) {
	r := watchRepo(t)
	r.Write("notes/todo.txt", "untracked\n")
	d := startDaemon(t, r.Dir)
	exclude := func(o *Options) { o.UseDaemon = true; o.Exclude = []string{"notes/**"} }
	client := openWS(t, r.Dir, exclude)
	got, err := client.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want, err := openWS(t, r.Dir, func(o *Options) { o.Exclude = []string{"notes/**"} }).Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, client, "other exclude", got, want)
	if got.Worktree == fullWalk(t, r.Dir).Worktree {
		t.Fatal("the exclude glob changed nothing: the test proves nothing")
	}
	if st := d.Status(); st.Requests != 0 {
		t.Fatalf("daemon %+v answered a client of another configuration", st)
	}

	d.Close()
	reopening := openWS(t, r.Dir).NewDaemon(func() (*Workspace, error) { return openWS(t, r.Dir, exclude), nil })
	if err := reopening.Listen(); err != nil {
		t.Fatal(err)
	}
	go reopening.Serve(context.Background(), 0)
	t.Cleanup(func() { reopening.Close() })
	got, err = client.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, client, "reopened daemon", got, want)
	if st := reopening.Status(); st.Requests != 1 {
		t.Fatalf("reopened daemon %+v: want it to answer", st)
	}
}

// TestDaemonStopsWhenItsSocketIsGone: a daemon whose state folder was
// deleted under it cannot be reached and holds its lock on a deleted file,
// so a new daemon starts beside it; the old one stops, without removing
// the new one's socket, which goes on answering.
func TestDaemonStopsWhenItsSocketIsGone(t *testing.T) {
	old := socketCheck
	socketCheck = 20 * time.Millisecond
	t.Cleanup(func() { socketCheck = old })
	r := watchRepo(t)
	before, err := gittest.UserState(r.Dir, true)
	if err != nil {
		t.Fatal(err)
	}
	d1 := openWS(t, r.Dir).NewDaemon(nil)
	if err := d1.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- d1.Serve(context.Background(), 0) }()
	defer d1.Close()
	if err := os.RemoveAll(filepath.Join(r.Dir, ".git", "gitguard")); err != nil {
		t.Fatal(err)
	}
	d2 := startDaemon(t, r.Dir)
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("the first daemon's Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first daemon still serves after its socket was taken over")
	}
	d1.Close()
	listening.Delete(d2.sockPath) // asked through the socket, as from another process
	st, err := openWS(t, r.Dir, useDaemon).DaemonStatus(context.Background(), false)
	if err != nil || st.PID != os.Getpid() {
		t.Fatalf("the second daemon after the first stopped: %+v, %v", st, err)
	}
	after, err := gittest.UserState(r.Dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("the user's state changed:\n%s", gittest.Diff(before, after))
	}
	r.Git("fsck", "--no-progress")
}
