package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// crashScenario is one gitguard command killed at each crash point it
// passes. setup builds the state just before the command; rest is what
// follows it (the agent's edits and the call's finish, say), run after the
// command in the reference and after the re-run in every killed copy.
type crashScenario struct {
	name  string
	setup func(t *testing.T, r *gittest.Repo)
	args  []string
	rest  func(t *testing.T, r *gittest.Repo)
	// done matches the output of a re-run that refuses because the killed
	// command had already completed (its record was durable before the
	// kill): "already started", "nothing to undo". Checked against the
	// ledger by the outcome comparison.
	done *regexp.Regexp
	// writes is true for commands that may change work-tree files (undo).
	writes bool
}

// crashFixture is the common start: a run with a few committed files.
func crashFixture(t *testing.T) *gittest.Repo {
	r := gittest.New(t)
	r.Write("a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n")
	r.Write("b.txt", "b\n")
	r.Write("sub/c.txt", "c\n")
	r.Write("gone.txt", "to be deleted\n")
	r.Commit("init")
	mustRun(t, r.Dir, "start", "--run", "crash")
	return r
}

// agentEdits is what the agent's tool does: modify, create, delete.
func agentEdits(t *testing.T, r *gittest.Repo) {
	r.Write("a.txt", "1\nagent\n3\n4\n5\n6\n7\n8\n")
	r.Write("sub/new.txt", "created by the agent\n")
	r.Remove("gone.txt")
}

func crashScenarios() []crashScenario {
	already := regexp.MustCompile(`is already started|is succeeded, not started|nothing to undo`)
	finishWhole := func(t *testing.T, r *gittest.Repo) { mustRun(t, r.Dir, "call", "finish", "c1") }
	return []crashScenario{
		{
			name:  "snapshot",
			setup: func(t *testing.T, r *gittest.Repo) { agentEdits(t, r) },
			args:  []string{"snapshot", "--label", "after edits"},
			rest:  func(*testing.T, *gittest.Repo) {},
		},
		{
			name:  "call-start-paths",
			setup: func(*testing.T, *gittest.Repo) {},
			args:  []string{"call", "start", "c1", "--tool", "edit", "--", "a.txt", "sub/new.txt", "gone.txt"},
			rest:  func(t *testing.T, r *gittest.Repo) { agentEdits(t, r); finishWhole(t, r) },
			done:  already,
		},
		{
			name:  "call-start-whole",
			setup: func(*testing.T, *gittest.Repo) {},
			args:  []string{"call", "start", "c1", "--tool", "bash"},
			rest:  func(t *testing.T, r *gittest.Repo) { agentEdits(t, r); finishWhole(t, r) },
			done:  already,
		},
		{
			// The call starts a run not recorded yet: the run's first
			// checkpoint and the call's go out in one ref update.
			name:  "call-start-new-run-paths",
			setup: func(t *testing.T, r *gittest.Repo) { mustRun(t, r.Dir, "finish") },
			args:  []string{"call", "start", "c1", "--run", "fresh", "--tool", "edit", "--", "a.txt", "sub/new.txt", "gone.txt"},
			rest: func(t *testing.T, r *gittest.Repo) {
				agentEdits(t, r)
				mustRun(t, r.Dir, "call", "finish", "c1", "--run", "fresh")
			},
			done: already,
		},
		{
			name:  "call-start-new-run-whole",
			setup: func(t *testing.T, r *gittest.Repo) { mustRun(t, r.Dir, "finish") },
			args:  []string{"call", "start", "c1", "--run", "fresh", "--tool", "bash"},
			rest: func(t *testing.T, r *gittest.Repo) {
				agentEdits(t, r)
				mustRun(t, r.Dir, "call", "finish", "c1", "--run", "fresh")
			},
			done: already,
		},
		{
			name: "call-finish-paths",
			setup: func(t *testing.T, r *gittest.Repo) {
				mustRun(t, r.Dir, "call", "start", "c1", "--tool", "edit", "--", "a.txt", "sub/new.txt", "gone.txt")
				agentEdits(t, r)
			},
			args: []string{"call", "finish", "c1"},
			rest: func(*testing.T, *gittest.Repo) {},
			done: already,
		},
		{
			name: "call-finish-whole",
			setup: func(t *testing.T, r *gittest.Repo) {
				mustRun(t, r.Dir, "call", "start", "c1", "--tool", "bash")
				agentEdits(t, r)
			},
			args: []string{"call", "finish", "c1"},
			rest: func(*testing.T, *gittest.Repo) {},
			done: already,
		},
		{
			name: "undo",
			setup: func(t *testing.T, r *gittest.Repo) {
				mustRun(t, r.Dir, "call", "start", "c1", "--tool", "bash")
				agentEdits(t, r)
				mustRun(t, r.Dir, "call", "finish", "c1")
				// A user edit far from the agent's hunk: undo merges it.
				r.Write("a.txt", "1\nagent\n3\n4\n5\n6\n7\nuser\n")
			},
			args:   []string{"undo"},
			rest:   func(*testing.T, *gittest.Repo) {},
			done:   already,
			writes: true,
		},
		{
			name: "prune",
			setup: func(t *testing.T, r *gittest.Repo) {
				mustRun(t, r.Dir, "finish")
				for _, id := range []string{"old1", "old2"} {
					mustRun(t, r.Dir, "start", "--run", id)
					mustRun(t, r.Dir, "finish")
				}
			},
			// Runs are ordered by their last checkpoint's time, which may
			// tie within a millisecond: name them.
			args: []string{"prune", "--run", "crash", "--run", "old1"},
			rest: func(*testing.T, *gittest.Repo) {},
			// A re-run after the deletion went through names runs that are gone.
			done: regexp.MustCompile(`run "crash": run not found`),
		},
	}
}

// maxKillsPerPoint bounds the kills at one point (object.write is passed
// once per object); the report says when a point was sampled.
const maxKillsPerPoint = 40

// TestCrashPoints kills each command at every numbered crash point it
// passes and proves the repository survives: git fsck --strict is clean,
// every run ref points at a checkpoint that verifies completely and that
// log, show and status read, the user's refs, HEAD, index and (except for
// undo) files are untouched, and re-running the command, then the rest of
// the scenario, ends where an uninterrupted run ends.
func TestCrashPoints(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	if testing.Short() {
		t.Skip("kills gitguard a few hundred times")
	}
	// The scenarios run in parallel, each on repositories of its own; the
	// summary is logged once all of them are done.
	var mu sync.Mutex
	total, survived := 0, 0
	var summary []string
	t.Cleanup(func() {
		sort.Strings(summary)
		t.Logf("crash points: %d kills, %d ended with nothing lost\n%s", total, survived, strings.Join(summary, "\n"))
	})
	for _, sc := range crashScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			// The uninterrupted reference, which also counts the points.
			ref := crashFixture(t)
			sc.setup(t, ref)
			logFile := filepath.Join(t.TempDir(), "points")
			out, err := gitguardCmd(t, ref.Dir, []string{"GITGUARD_FAULT_LOG=" + logFile}, sc.args...)
			if err != nil {
				t.Fatalf("reference %s: %v\n%s", strings.Join(sc.args, " "), err, out)
			}
			sc.rest(t, ref)
			want := crashOutcome(t, ref.Dir)
			counts := countPoints(t, logFile)
			if len(counts) == 0 {
				t.Fatal("the command passed no crash point")
			}
			var names []string
			for p := range counts {
				names = append(names, p)
			}
			sort.Strings(names)
			for _, point := range names {
				n := counts[point]
				for _, k := range killSchedule(n) {
					name := fmt.Sprintf("%s:%d", point, k)
					ok := t.Run(name, func(t *testing.T) { crashOnce(t, sc, point, k, want) })
					mu.Lock()
					total++
					if ok {
						survived++
					}
					mu.Unlock()
				}
				mu.Lock()
				summary = append(summary, fmt.Sprintf("%s %s: %d hit(s), %d killed", sc.name, point, n, len(killSchedule(n))))
				mu.Unlock()
			}
		})
	}
}

// killSchedule lists the hits to kill at: all of them, or when there are
// more than maxKillsPerPoint an even sample that keeps the first and last.
func killSchedule(n int) []int {
	if n <= maxKillsPerPoint {
		out := make([]int, n)
		for i := range out {
			out[i] = i + 1
		}
		return out
	}
	var out []int
	for i := 0; i < maxKillsPerPoint; i++ {
		out = append(out, 1+i*(n-1)/(maxKillsPerPoint-1))
	}
	return out
}

func countPoints(t *testing.T, file string) map[string]int {
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("no crash point log: %v", err)
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out[sc.Text()]++
	}
	return out
}

func crashOnce(t *testing.T, sc crashScenario, point string, k int, want string) {
	r := crashFixture(t)
	sc.setup(t, r)
	user, err := gittest.UserState(r.Dir, !sc.writes)
	if err != nil {
		t.Fatal(err)
	}
	refsOnly, err := gittest.UserState(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	out, err := gitguardCmd(t, r.Dir, []string{fmt.Sprintf("GITGUARD_FAULT=%s:%d", point, k)}, sc.args...)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != -1 {
		t.Fatalf("not killed at %s:%d: %v\n%s", point, k, err, out)
	}
	if out, err := git.Run(context.Background(), r.Dir, "fsck", "--strict", "--no-progress", "--no-dangling"); err != nil {
		t.Fatalf("git fsck after the kill: %v\n%s", err, out)
	}
	if after, err := gittest.UserState(r.Dir, !sc.writes); err != nil || after != user {
		t.Fatalf("invariant 1 broken by the kill (%v):\n%s", err, gittest.Diff(user, after))
	}
	checkRunsReadable(t, r.Dir)
	// A kill between taking a ref's lock and renaming it leaves the lock,
	// which a later command breaks once it is old enough to be nobody's
	// (see gitrefs' stalelock.go): the re-run comes that much later.
	left := ageRefLocks(t, filepath.Join(r.Dir, ".git", "refs"), 2*time.Second)

	out, err = gitguardCmd(t, r.Dir, nil, sc.args...)
	if err != nil {
		if !errors.As(err, &ee) || ee.ExitCode() != exitUsage || sc.done == nil || !sc.done.MatchString(out) {
			t.Fatalf("re-run after the kill: %v\n%s", err, out)
		}
	}
	if left > 0 {
		if again := ageRefLocks(t, filepath.Join(r.Dir, ".git", "refs"), 0); again > 0 {
			t.Errorf("the re-run left %d stale ref locks", again)
		}
	}
	sc.rest(t, r)
	if got := crashOutcome(t, r.Dir); got != want {
		t.Errorf("after the kill and a re-run the outcome differs from an uninterrupted run:\n%s", gittest.Diff(want, got))
	}
	if after, err := gittest.UserState(r.Dir, false); err != nil || after != refsOnly {
		t.Errorf("invariant 1 broken after the re-run (%v):\n%s", err, gittest.Diff(refsOnly, after))
	}
}

// checkRunsReadable proves every run ref points at a complete checkpoint:
// VerifyRun accepts its whole chain (every object it names exists), the
// store reads it, and log, show and status work on it.
func checkRunsReadable(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	g, err := gitguard.Open(ctx, dir, gitguard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	runs, err := g.ListRuns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range runs {
		if err := g.VerifyRun(ctx, info.ID); err != nil {
			t.Errorf("run %s does not verify after the kill: %v", info.ID, err)
			continue
		}
		run, err := g.ReadRun(ctx, info.ID)
		if err != nil {
			t.Errorf("run %s unreadable after the kill: %v", info.ID, err)
			continue
		}
		id := string(info.ID)
		for _, args := range [][]string{
			{"log", "--run", id},
			{"show", "--run", id, string(run.Checkpoint.ID)},
			{"ledger", "--run", id},
			{"status", "--run", id},
		} {
			out, err := gitguardCmd(t, dir, nil, args...)
			var ee *exec.ExitError
			if err != nil && !(args[0] == "status" && errors.As(err, &ee) && ee.ExitCode() == exitFound) {
				t.Errorf("gitguard %s after the kill: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	}
}

// crashOutcome is what an interrupted-and-re-run command must agree on
// with an uninterrupted one: the work-tree files, the runs, and per run the
// newest checkpoint's trees and HEAD and every call's ledger state and
// patches. Timestamps, commit ids and the number of checkpoints (a re-run
// snapshot adds one) are left out.
func crashOutcome(t *testing.T, dir string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	w, err := gittest.WorktreeDigest(dir)
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString(w)
	g, err := gitguard.Open(ctx, dir, gitguard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	runs, err := g.ListRuns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range runs {
		id := info.ID
		run, err := g.ReadRun(ctx, id)
		if err != nil {
			t.Fatalf("read run %s: %v", id, err)
		}
		cp := run.Checkpoint
		fmt.Fprintf(&b, "run %s worktree %s index %s head %s finished %v\n", id, cp.WorktreeTree, cp.IndexTree, cp.Head.Commit, cp.RunFinished)
		var ids []string
		for cid := range run.Calls {
			ids = append(ids, string(cid))
		}
		sort.Strings(ids)
		for _, cid := range ids {
			c := run.Calls[record.CallID(cid)]
			l := c.Ledger
			fmt.Fprintf(&b, "  call %s tool %s status %s undone-by %q undoes %v paths %v patches %d\n",
				cid, l.ToolName, l.Status, l.UndoneBy, l.Undoes, l.Paths, len(c.Patches))
			for _, p := range c.Patches {
				fmt.Fprintf(&b, "    %s %s:%s -> %s:%s\n", p.Path, p.BeforeMode, p.BeforeHash.Short(), p.AfterMode, p.AfterHash.Short())
			}
		}
	}
	return b.String()
}

// ageRefLocks makes the ref locks under dir the given age, as if time had
// passed since they were taken, and returns how many there are.
func ageRefLocks(t *testing.T, dir string, age time.Duration) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".lock") {
			return err
		}
		n++
		when := time.Now().Add(-age)
		return os.Chtimes(path, when, when)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
