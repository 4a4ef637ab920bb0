package gitguard_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// fixture is a throwaway repository with a guard and an active run.
type fixture struct {
	t     *testing.T
	repo  *gittest.Repo
	g     *gitguard.Guard
	run   record.RunID
	ctx   context.Context
	state string // user state (invariant 1) captured at start
}

func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	r := gittest.New(t)
	for p, c := range files {
		r.Write(p, c)
	}
	r.Commit("init")
	f := &fixture{t: t, repo: r, ctx: context.Background()}
	f.state = f.userState()
	g, err := gitguard.Open(f.ctx, r.Dir, gitguard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	f.g = g
	run, err := g.StartRun(f.ctx, "test-run", gitguard.CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.run = run.ID
	return f
}

// reopen opens the guard again, after a test changed the repository's
// config; the run stays the one it was.
func (f *fixture) reopen() {
	f.t.Helper()
	g, err := gitguard.Open(f.ctx, f.repo.Dir, gitguard.Options{})
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { g.Close() })
	f.g = g
}

// reopenNewRun opens the guard again and starts a new run, after a test
// changed what gitguard sees (conversion, filters): a run sees as
// configured when it started.
func (f *fixture) reopenNewRun() {
	f.t.Helper()
	if _, err := f.g.FinishRun(f.ctx, f.run, gitguard.CheckpointOptions{}); err != nil {
		f.t.Fatal(err)
	}
	f.reopen()
	run, err := f.g.StartRun(f.ctx, f.run+"-reopened", gitguard.CheckpointOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	f.run = run.ID
}

func (f *fixture) userState() string {
	f.t.Helper()
	s, err := gittest.UserState(f.repo.Dir, false)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

// checkInvariant1 asserts that refs outside the namespace, HEAD, the index,
// the stash, reflogs and config are as they were when the fixture started.
func (f *fixture) checkInvariant1() {
	f.t.Helper()
	if got := f.userState(); got != f.state {
		f.t.Errorf("invariant 1 broken:\n%s", gittest.Diff(f.state, got))
	}
}

func (f *fixture) abs(p string) string { return filepath.Join(f.repo.Dir, p) }

func (f *fixture) write(p, content string) {
	f.t.Helper()
	f.repo.Write(p, content)
}

func (f *fixture) remove(p string) {
	f.t.Helper()
	if err := os.Remove(f.abs(p)); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) chmod(p string, mode os.FileMode) {
	f.t.Helper()
	if err := os.Chmod(f.abs(p), mode); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) symlink(target, p string) {
	f.t.Helper()
	os.Remove(f.abs(p))
	if err := os.Symlink(target, f.abs(p)); err != nil {
		f.t.Fatal(err)
	}
}

// call records one agent tool call around change. With paths it captures
// just those; without, the whole workspace.
func (f *fixture) call(id record.CallID, paths []string, change func()) {
	f.t.Helper()
	if _, err := f.g.CallStart(f.ctx, f.run, gitguard.CallOptions{CallID: id, Tool: "write_file", Paths: paths}); err != nil {
		f.t.Fatalf("call start %s: %v", id, err)
	}
	change()
	if _, err := f.g.CallFinish(f.ctx, f.run, id, gitguard.FinishOptions{}); err != nil {
		f.t.Fatalf("call finish %s: %v", id, err)
	}
}

// hashObject returns git's blob id for the path as it is on disk now
// (a symlink's target for symlinks), or "" when absent.
func (f *fixture) hashObject(p string) string {
	f.t.Helper()
	fi, err := os.Lstat(f.abs(p))
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		f.t.Fatal(err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(f.abs(p))
		if err != nil {
			f.t.Fatal(err)
		}
		tmp := filepath.Join(f.t.TempDir(), "link")
		if err := os.WriteFile(tmp, []byte(target), 0o644); err != nil {
			f.t.Fatal(err)
		}
		return f.repo.Git("hash-object", "--no-filters", tmp)
	}
	return f.repo.Git("hash-object", "--no-filters", "--", p)
}

// snapshotFile describes a path on disk: "absent", "link -> T", or the
// permission bits and content.
func (f *fixture) snapshotFile(p string) string {
	f.t.Helper()
	fi, err := os.Lstat(f.abs(p))
	if os.IsNotExist(err) {
		return "absent"
	}
	if err != nil {
		f.t.Fatal(err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(f.abs(p))
		return "link -> " + target
	}
	data, err := os.ReadFile(f.abs(p))
	if err != nil {
		f.t.Fatal(err)
	}
	exec := "file"
	if fi.Mode()&0o100 != 0 {
		exec = "exec"
	}
	return exec + ":" + string(data)
}

func lines(s ...string) string { return strings.Join(s, "\n") + "\n" }
