package gitguard_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/brief"
	"github.com/gitguard/gitguard/conflict"
	"github.com/gitguard/gitguard/record"
)

// start and finish record one side of a call of run in the fixture's
// repository; paths nil captures the whole workspace (a shell command).
func (f *fixture) start(run record.RunID, id record.CallID, tool string, paths ...string) {
	f.t.Helper()
	if _, err := f.g.CallStart(f.ctx, run, gitguard.CallOptions{CallID: id, Tool: tool, Paths: paths}); err != nil {
		f.t.Fatalf("start %s/%s: %v", run, id, err)
	}
}

func (f *fixture) finish(run record.RunID, id record.CallID) *gitguard.Run {
	f.t.Helper()
	r, err := f.g.CallFinish(f.ctx, run, id, gitguard.FinishOptions{})
	if err != nil {
		f.t.Fatalf("finish %s/%s: %v", run, id, err)
	}
	return r
}

// patchPaths lists a call's own patches as "path" or "path shared with R/C".
func patchPaths(c *record.Call) []string {
	var out []string
	for _, p := range c.Patches {
		s := p.Path
		if len(p.SharedWith) > 0 {
			var with []string
			for _, r := range p.SharedWith {
				with = append(with, r.String())
			}
			s += " shared with " + strings.Join(with, ",")
		}
		out = append(out, s)
	}
	return out
}

func otherPaths(c *record.Call) []string {
	var out []string
	for _, p := range c.Others {
		out = append(out, p.Path+" owned by "+p.OwnedBy.String())
	}
	return out
}

func (f *fixture) readCall(run record.RunID, id record.CallID) *record.Call {
	f.t.Helper()
	r, err := f.g.ReadRun(f.ctx, run, id)
	if err != nil {
		f.t.Fatal(err)
	}
	c := r.Calls[id]
	if c == nil {
		f.t.Fatalf("no call %s in run %s", id, run)
	}
	return c
}

func wantList(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

// Two sessions in one work tree: a shell command of s1 runs while s2's
// edit tool changes src/a.txt. The edit is s2's, not the shell command's:
// undoing s1's call keeps it, and s2 still finds it applied.
func TestParallelEditInsideShellCall(t *testing.T) {
	f := newFixture(t, map[string]string{"src/a.txt": "one\n", "docs/readme.md": "# readme\n"})
	s1, s2 := record.RunID("cc-s1"), record.RunID("cc-s2")
	f.start(s1, "tu_a", "Bash")
	f.start(s2, "tu_b", "Edit", "src/a.txt")
	f.write("src/a.txt", "ONE-B\n")
	f.finish(s2, "tu_b")
	f.write("docs/readme.md", "# readme\nappended by the shell\n")
	f.finish(s1, "tu_a")

	a := f.readCall(s1, "tu_a")
	wantList(t, "tu_a's patches", patchPaths(a), "docs/readme.md")
	wantList(t, "tu_a's others", otherPaths(a), "src/a.txt owned by cc-s2/tu_b")

	st, err := f.g.Status(f.ctx, s1, gitguard.StatusOptions{Unrecorded: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Paths) != 1 || st.Paths[0].Path != "docs/readme.md" || len(st.Unrecorded) != 0 {
		t.Fatalf("status of s1: %+v, unrecorded %+v; want docs/readme.md only", st.Paths, st.Unrecorded)
	}
	if len(st.Others) != 1 || st.Others[0].Path != "src/a.txt" {
		t.Errorf("status of s1 others: %+v, want src/a.txt", st.Others)
	}

	// Each session's brief names the other's change as the other's.
	for _, w := range []struct {
		run  record.RunID
		want string
	}{
		{s1, "- src/a.txt was changed by call tu_b of run cc-s2, another session"},
		{s2, "- docs/readme.md was changed by call tu_a of run cc-s1, another session"},
	} {
		r, err := f.g.Resume(f.ctx, w.run, gitguard.ResumeOptions{DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		if brief := brief.Text(r); !strings.Contains(brief, w.want) || strings.Contains(brief, "Changed outside any recorded call") {
			t.Errorf("brief of %s:\n%s\nwant a line %q and no unrecorded change", w.run, brief, w.want)
		}
	}

	res, err := f.g.Undo(f.ctx, s1, gitguard.UndoOptions{Call: "tu_a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 || res.Items[0].Path != "docs/readme.md" || !res.Items[0].Written {
		t.Fatalf("undo tu_a: %+v, want docs/readme.md restored only", res.Items)
	}
	if got := f.snapshotFile("src/a.txt"); got != "file:ONE-B\n" {
		t.Errorf("src/a.txt after undoing s1 = %q, want s2's edit kept", got)
	}
	if got := f.snapshotFile("docs/readme.md"); got != "file:# readme\n" {
		t.Errorf("docs/readme.md after undo = %q", got)
	}
	st2, err := f.g.Status(f.ctx, s2, gitguard.StatusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st2.Paths) != 1 || st2.Paths[0].State != conflict.Applied {
		t.Errorf("status of s2: %+v, want src/a.txt applied", st2.Paths)
	}
	if got := f.repo.Git("status", "--porcelain"); got != " M src/a.txt" {
		t.Errorf("git status = %q", got)
	}
	f.checkInvariant1()
}

// A shell command of run A sees, in its window, run B's edit of b.txt, the
// user's save of notes.txt and its own write of a.txt. b.txt is B's; the
// user's edit stays A's, as for a single session (gitguard cannot tell a
// user's save from the shell command's).
func TestParallelUserEditStaysShellCalls(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "notes.txt": "n\n"})
	runA, runB := f.run, record.RunID("run-b")
	f.start(runA, "sh1", "Bash")
	f.write("a.txt", "a by the shell\n")
	f.start(runB, "ed1", "Write", "b.txt")
	f.write("b.txt", "b by B\n")
	f.finish(runB, "ed1")
	f.write("notes.txt", "n by the user\n")
	f.finish(runA, "sh1")

	c := f.readCall(runA, "sh1")
	wantList(t, "sh1's patches", patchPaths(c), "a.txt", "notes.txt")
	wantList(t, "sh1's others", otherPaths(c), "b.txt owned by run-b/ed1")
	wantList(t, "ed1's patches", patchPaths(f.readCall(runB, "ed1")), "b.txt")
	f.checkInvariant1()
}

// A path-scoped edit of another run that changed a file in the middle of a
// shell command's own changes explains its part only: the shell command's
// patch is what it did before and after.
func TestParallelEditPartOfShellChange(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "1\n2\n3\n"})
	runB := record.RunID("run-b")
	f.start(f.run, "sh1", "Bash")
	f.start(runB, "ed1", "Edit", "a.txt")
	f.write("a.txt", "1\nB\n3\n")
	f.finish(runB, "ed1")
	f.write("a.txt", "1\nB\n3\nshell\n")
	f.finish(f.run, "sh1")

	c := f.readCall(f.run, "sh1")
	wantList(t, "sh1's others", otherPaths(c), "a.txt owned by run-b/ed1")
	if len(c.Patches) != 1 || c.Patches[0].BeforeHash.String() != gitBlob(t, f, "1\nB\n3\n") {
		t.Fatalf("sh1's patch: %+v, want a.txt from B's after state", c.Patches)
	}
	if _, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{Call: "sh1"}); err != nil {
		t.Fatal(err)
	}
	if got := f.snapshotFile("a.txt"); got != "file:1\nB\n3\n" {
		t.Errorf("a.txt after undoing the shell call = %q, want B's edit kept", got)
	}
	f.checkInvariant1()
}

func gitBlob(t *testing.T, f *fixture, content string) string {
	t.Helper()
	return record.BlobHash([]byte(content)).String()
}

// Two shell commands of two runs overlap in time and x.txt changes while
// both run: gitguard cannot tell which one wrote it, so both record it
// shared with the other. Undo leaves it and says why; --force reverts it.
// a.txt, written before the second command started, is the first one's
// alone: the second one's start snapshot already held it.
func TestParallelShellCallsShare(t *testing.T) {
	f := newFixture(t, map[string]string{"x.txt": "x\n", "a.txt": "a\n"})
	runA, runB := f.run, record.RunID("run-b")
	f.start(runA, "shA", "Bash")
	f.write("a.txt", "a by A\n")
	f.start(runB, "shB", "Bash")
	f.write("x.txt", "x changed\n")
	f.finish(runA, "shA")
	f.finish(runB, "shB")

	wantList(t, "shA's patches", patchPaths(f.readCall(runA, "shA")), "a.txt", "x.txt shared with run-b/shB")
	wantList(t, "shB's patches", patchPaths(f.readCall(runB, "shB")), "x.txt shared with test-run/shA")
	r, err := f.g.Resume(f.ctx, runA, gitguard.ResumeOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := "- x.txt changed while shA and call shB of run run-b of another session both ran"; !strings.Contains(brief.Text(r), want) {
		t.Errorf("brief:\n%s\nwant %q", brief.Text(r), want)
	}

	st, err := f.g.Status(f.ctx, runA, gitguard.StatusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range st.Paths {
		if shared := len(p.SharedWith) > 0; shared != (p.Path == "x.txt") {
			t.Errorf("status %s: shared with %v", p.Path, p.SharedWith)
		}
	}

	res, err := f.g.Undo(f.ctx, runA, gitguard.UndoOptions{Call: "shA"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Shared != 1 {
		t.Errorf("undo: %d shared, want 1", res.Shared)
	}
	for _, it := range res.Items {
		switch it.Path {
		case "x.txt":
			if it.Action != gitguard.ActionShared || it.Written || !strings.Contains(it.Reason, "call shB of run run-b") || !strings.Contains(it.Reason, "--force") {
				t.Errorf("x.txt: %s written=%v %q; want left as it is, naming shB", it.Action, it.Written, it.Reason)
			}
		case "a.txt":
			if !it.Written {
				t.Errorf("a.txt not restored: %+v", it)
			}
		}
	}
	if got := f.snapshotFile("x.txt"); got != "file:x changed\n" {
		t.Errorf("x.txt = %q, want left as it is", got)
	}
	if got := f.snapshotFile("a.txt"); got != "file:a\n" {
		t.Errorf("a.txt = %q, want restored", got)
	}
	// The call keeps x.txt in effect: undoing it again with --force
	// reverts it.
	res, err = f.g.Undo(f.ctx, runA, gitguard.UndoOptions{Call: "shA", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.snapshotFile("x.txt"); got != "file:x\n" || res.Shared != 0 {
		t.Errorf("x.txt after --force = %q (shared %d), want restored", got, res.Shared)
	}
	f.checkInvariant1()
}

// A shell call of another run still open is named by OpenElsewhere.
func TestOpenElsewhere(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"})
	f.start("run-b", "shB", "Bash")
	got, err := f.g.OpenElsewhere(f.ctx, f.run)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != (record.CallRef{Run: "run-b", Call: "shB"}) {
		t.Fatalf("open elsewhere = %v, want run-b/shB", got)
	}
	f.finish("run-b", "shB")
	if got, err = f.g.OpenElsewhere(f.ctx, f.run); err != nil || len(got) != 0 {
		t.Fatalf("open elsewhere after finish = %v, %v; want none", got, err)
	}
	f.checkInvariant1()
}

// With the watch daemon running, a change made before another run's shell
// command started is the first command's even where no snapshot can show
// it: big.bin is over the size limit, so neither start snapshot holds its
// content, and only the daemon's time of the change tells. Without the
// daemon the same change is shared.
func TestParallelDaemonTimesChange(t *testing.T) {
	for _, daemon := range []bool{true, false} {
		name := "without daemon"
		if daemon {
			name = "with daemon"
		}
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, map[string]string{"a.txt": "a\n"})
			wopts := gitguard.WorkspaceOptions{MaxFileSize: 16, UseDaemon: true}
			if daemon {
				gd, err := gitguard.Open(f.ctx, f.repo.Dir, gitguard.Options{Workspace: wopts})
				if err != nil {
					t.Fatal(err)
				}
				d := gd.NewDaemon(nil)
				if err := d.Listen(); err != nil {
					t.Fatal(err)
				}
				served := make(chan error, 1)
				go func() { served <- d.Serve(context.Background(), 0) }()
				t.Cleanup(func() {
					d.Close()
					<-served
					gd.Close()
				})
			}
			g, err := gitguard.Open(f.ctx, f.repo.Dir, gitguard.Options{Workspace: wopts})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { g.Close() })
			// A run keeps the settings it started with: start one with
			// the 16-byte limit the daemon has too.
			if _, err := f.g.FinishRun(f.ctx, f.run, gitguard.CheckpointOptions{}); err != nil {
				t.Fatal(err)
			}
			f.g = g
			run, err := g.StartRun(f.ctx, "run-a", gitguard.CheckpointOptions{})
			if err != nil {
				t.Fatal(err)
			}
			f.run = run.ID
			if _, _, err := g.Snapshot(f.ctx, f.run, gitguard.CheckpointOptions{}); err != nil { // arms the daemon's watcher
				t.Fatal(err)
			}
			f.start(f.run, "shA", "Bash")
			f.write("big.bin", strings.Repeat("big\n", 100))
			if daemon {
				f.pastTheWatchersTime(g)
			}
			f.start("run-b", "shB", "Bash")
			f.write("a.txt", "a while both ran\n")
			f.finish(f.run, "shA")
			f.finish("run-b", "shB")

			want := []string{"a.txt shared with run-b/shB", "big.bin"}
			if !daemon {
				want[1] = "big.bin shared with run-b/shB"
			}
			wantList(t, "shA's patches", patchPaths(f.readCall(f.run, "shA")), want...)
			wantList(t, "shB's patches", patchPaths(f.readCall("run-b", "shB")), "a.txt shared with run-a/shA")
			if daemon {
				st, err := g.WatchStatus(f.ctx, false)
				if err != nil || st.Watched == 0 {
					t.Errorf("daemon status %+v, %v: want snapshots answered from the watcher", st, err)
				}
			}
			f.checkInvariant1()
		})
	}
}

// pastTheWatchersTime waits until the watch daemon has read every change
// made so far and the clock has passed the millisecond it read them in.
// A call's start time is kept to the millisecond: a change read in the
// same millisecond as a call started cannot be told to be earlier, and is
// then rightly shared.
func (f *fixture) pastTheWatchersTime(g *gitguard.Guard) {
	f.t.Helper()
	if _, err := gitguard.WorkspaceOf(g).ChangeTimes(f.ctx, nil); err != nil {
		f.t.Fatal(err)
	}
	read := time.Now().UTC().Truncate(time.Millisecond)
	for !time.Now().UTC().Truncate(time.Millisecond).After(read) {
		time.Sleep(100 * time.Microsecond)
	}
}

// A shell call whose process died (found started by a resume, or left in a
// finished run) shares nothing with later calls; a run whose records cannot
// be read does not stop a call from finishing.
func TestParallelAbandonedAndDamagedRuns(t *testing.T) {
	f := newFixture(t, map[string]string{"x.txt": "x\n"})
	f.start("run-b", "shB", "Bash")
	if _, err := f.g.Resume(f.ctx, "run-b", gitguard.ResumeOptions{}); err != nil {
		t.Fatal(err)
	}
	f.start("run-c", "shC", "Bash")
	if _, err := f.g.FinishRun(f.ctx, "run-c", gitguard.CheckpointOptions{}); err != nil {
		t.Fatal(err)
	}
	// A run ref that names no checkpoint: not gitguard's data.
	f.repo.Git("update-ref", "refs/agent-checkpoints/runs/damaged", "HEAD")

	f.start(f.run, "shA", "Bash")
	f.write("x.txt", "x by A\n")
	f.finish(f.run, "shA")
	wantList(t, "shA's patches", patchPaths(f.readCall(f.run, "shA")), "x.txt")
	got, err := f.g.OpenElsewhere(f.ctx, f.run)
	if err != nil || len(got) != 0 {
		t.Errorf("open elsewhere = %v, %v; want none", got, err)
	}
	f.checkInvariant1()
}

// Runs of another linked worktree of the repository share its refs but not
// its files: a shell call there, at the same time, shares nothing with one
// here, even on a path of the same name. File names with a space and a
// leading dash are attributed like any other.
func TestParallelOtherWorktreeIgnored(t *testing.T) {
	f := newFixture(t, map[string]string{"-x file.txt": "x\n"})
	other := t.TempDir() + "/wt2"
	f.repo.Git("worktree", "add", "-q", "--detach", other)
	f.state = f.userState()
	g2, err := gitguard.Open(f.ctx, other, gitguard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g2.Close() })

	f.start(f.run, "shA", "Bash")
	if _, err := g2.CallStart(f.ctx, "run-wt2", gitguard.CallOptions{CallID: "shB", Tool: "Bash"}); err != nil {
		t.Fatal(err)
	}
	f.write("-x file.txt", "x here\n")
	if err := os.WriteFile(other+"/-x file.txt", []byte("x there\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.finish(f.run, "shA")
	if _, err := g2.CallFinish(f.ctx, "run-wt2", "shB", gitguard.FinishOptions{}); err != nil {
		t.Fatal(err)
	}
	wantList(t, "shA's patches", patchPaths(f.readCall(f.run, "shA")), "-x file.txt")
	r, err := g2.ReadRun(f.ctx, "run-wt2", "shB")
	if err != nil {
		t.Fatal(err)
	}
	wantList(t, "shB's patches", patchPaths(r.Calls["shB"]), "-x file.txt")
	if got, err := f.g.OpenElsewhere(f.ctx, f.run); err != nil || len(got) != 0 {
		t.Errorf("open elsewhere = %v, %v; want none from the other worktree", got, err)
	}
	f.checkInvariant1()
}

// An edit of another run that finished before the shell call started never
// explains the shell call's change, even where the contents line up: the
// shell call's patch stays whole.
func TestParallelEarlierEditExplainsNothing(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "one\n"})
	f.start("run-b", "ed1", "Edit", "a.txt")
	f.write("a.txt", "ONE-B\n")
	f.finish("run-b", "ed1")
	f.write("a.txt", "user\n")
	f.start(f.run, "sh1", "Bash")
	f.write("a.txt", "ONE-B\n")
	f.finish(f.run, "sh1")
	c := f.readCall(f.run, "sh1")
	wantList(t, "sh1's others", otherPaths(c))
	if len(c.Patches) != 1 || c.Patches[0].BeforeHash != record.BlobHash([]byte("user\n")) || c.Patches[0].AfterHash != record.BlobHash([]byte("ONE-B\n")) {
		t.Errorf("sh1's patches: %+v, want a.txt user -> ONE-B", c.Patches)
	}
	f.checkInvariant1()
}
