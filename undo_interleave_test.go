package gitguard_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// TestUndoRedoInterleaved runs random agent calls on the base fixture
// repository, each made of changes of every type a path can go through:
// file contents and deletions; a file or a symlink turned into a folder and
// back; a folder turned into a file or into a symlink to a folder outside
// the work tree; links that point outside the work tree, to absolute
// paths, or loop (a -> b -> a, d -> d/.., a link to itself). Between a call
// and its undo the user at times adds a file of their own beside the
// agent's changes, or inside a folder the agent made. After every undo the
// work tree must be exactly as before the call (every path's content,
// mode and link target), plus the user's files; after every redo exactly as
// after the call. The user's files are never lost, nothing outside the
// work tree changes, and invariant 1 holds throughout.
func TestUndoRedoInterleaved(t *testing.T) {
	gittest.RequireGit(t)
	seen := map[string]bool{}
	t.Cleanup(func() {
		for _, what := range []string{"file->folder", "folder->file", "symlink->folder", "folder->symlink",
			"file->symlink", "symlink->file", "link outside", "link absolute", "link loop", "link to itself",
			"user file beside", "user file inside"} {
			if !t.Failed() && !seen[what] {
				t.Errorf("no round made a change of kind %q", what)
			}
		}
	})
	const seeds, rounds = 3, 16
	for seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			interleave(t, uint64(seed), rounds, seen)
		})
	}
}

func interleave(t *testing.T, seed uint64, rounds int, seen map[string]bool) {
	ctx := context.Background()
	r := gittest.Fixture(t, "base")
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "o.txt"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outDigest := digestOf(t, outside)
	user, err := gittest.UserState(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gitguard.Open(ctx, r.Dir, gitguard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	run, err := g.StartRun(ctx, "interleave", gitguard.CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 11))
	a := &agentOps{t: t, dir: r.Dir, rng: rng, outside: outside, seen: seen}
	userFiles := map[string]string{} // path → content, the user's own files
	for round := range rounds {
		id := record.CallID(fmt.Sprintf("c%02d", round))
		before := worktreeDigest(t, r.Dir)
		if _, err := g.CallStart(ctx, run.ID, gitguard.CallOptions{CallID: id, Tool: "bash"}); err != nil {
			t.Fatal(err)
		}
		made := map[string]bool{} // folders the agent made in this call → in the place of a file or link
		for range 1 + rng.IntN(3) {
			if d, replaced := a.change(); d != "" {
				made[d] = replaced
			}
		}
		if _, err := g.CallFinish(ctx, run.ID, id, gitguard.FinishOptions{}); err != nil {
			t.Fatal(err)
		}
		after := worktreeDigest(t, r.Dir)
		what := fmt.Sprintf("round %d (%s)", round, strings.Join(a.log, "; "))
		a.log = nil
		if maps.Equal(before, after) {
			continue // the call changed nothing: there is nothing of it to undo
		}

		// The user adds a file beside the agent's changes, or inside a
		// folder the agent just made.
		inside, replaced := "", false
		var folders []string
		for d := range made {
			if a.kind(d) == "folder" {
				folders = append(folders, d)
			}
		}
		sort.Strings(folders)
		switch k := rng.IntN(4); {
		case k == 0:
			p := fmt.Sprintf("user-%d-%d.txt", seed, round)
			userFiles[p] = fmt.Sprintf("mine %d\n", round)
			r.Write(p, userFiles[p])
			seen["user file beside"] = true
			what += "; the user wrote " + p
		case k == 1 && len(folders) > 0:
			d := folders[rng.IntN(len(folders))]
			inside, replaced = d+fmt.Sprintf("/user-%d-%d.txt", seed, round), made[d]
			r.Write(inside, "mine inside\n")
			seen["user file inside"] = true
			what += "; the user wrote " + inside
		}

		res, err := g.Undo(ctx, run.ID, gitguard.UndoOptions{})
		if err != nil {
			t.Fatalf("%s: undo: %v", what, err)
		}
		if os.Getenv("GITGUARD_TEST_DEBUG") != "" {
			t.Logf("%s: undo %+v", what, res)
		}
		if inside != "" {
			// The agent's folder stays, with the user's file; the rest is
			// undone. A folder in the place of a file or link is reported.
			if got := r.Read(inside); got != "mine inside\n" {
				t.Fatalf("%s: undo lost the user's file %s: %q", what, inside, got)
			}
			if replaced && res.Conflicts == 0 {
				t.Errorf("%s: undo reported no path left as it is with %s inside the agent's folder", what, inside)
			}
			// The user moves it away; undo again finishes the job.
			moved := fmt.Sprintf("user-moved-%d-%d.txt", seed, round)
			if err := os.Rename(filepath.Join(r.Dir, inside), filepath.Join(r.Dir, moved)); err != nil {
				t.Fatal(err)
			}
			userFiles[moved] = "mine inside\n"
			if res.Conflicts > 0 {
				if _, err := g.Undo(ctx, run.ID, gitguard.UndoOptions{}); err != nil {
					t.Fatalf("%s: undo again: %v", what, err)
				}
			}
			checkDigest(t, r.Dir, before, what+": after undo, the user's file moved away")
		} else {
			checkDigest(t, r.Dir, before, what+": after undo")
			if _, err := g.Redo(ctx, run.ID, gitguard.UndoOptions{}); err != nil {
				t.Fatalf("%s: redo: %v", what, err)
			}
			checkDigest(t, r.Dir, after, what+": after redo")
			// Every time: undo and redo again, at times.
			for rng.IntN(2) == 0 {
				if _, err := g.Undo(ctx, run.ID, gitguard.UndoOptions{}); err != nil {
					t.Fatalf("%s: undo again: %v", what, err)
				}
				checkDigest(t, r.Dir, before, what+": after undo again")
				if _, err := g.Redo(ctx, run.ID, gitguard.UndoOptions{}); err != nil {
					t.Fatalf("%s: redo again: %v", what, err)
				}
				checkDigest(t, r.Dir, after, what+": after redo again")
			}
		}
		checkUserFiles(t, r, userFiles, what)
		if got := digestOf(t, outside); got != outDigest {
			t.Fatalf("%s: the folder outside the work tree changed:\n%s", what, gittest.Diff(outDigest, got))
		}
		if now, err := gittest.UserState(r.Dir, false); err != nil || now != user {
			t.Fatalf("%s: user state changed (invariant 1): %v\n%s", what, err, gittest.Diff(user, now))
		}
	}
}

// agentOps makes the agent's changes in a work tree, never writing through
// a symlink itself.
type agentOps struct {
	t       *testing.T
	dir     string
	rng     *rand.Rand
	outside string
	seen    map[string]bool
	log     []string
}

// agentPaths are the paths the agent changes: the fixture's files,
// folders and link, and new ones.
var agentPaths = []string{"a.txt", "dir", "dir/b.txt", "dir/sub", "dir/sub/c.txt", "lib", "exec.sh",
	"link", "z-last", "new", "new/deep", "loop-a", "self", "tz", "env", "out"}

func (a *agentOps) abs(p string) string { return filepath.Join(a.dir, filepath.FromSlash(p)) }

func (a *agentOps) kind(p string) string {
	fi, err := os.Lstat(a.abs(p))
	switch {
	case err != nil:
		return "absent"
	case fi.Mode()&os.ModeSymlink != 0:
		return "symlink"
	case fi.IsDir():
		return "folder"
	}
	return "file"
}

// clear removes what is at p (a link itself, never what it points at) and
// makes p's parents real folders.
func (a *agentOps) clear(p string) {
	if d := filepath.Dir(filepath.FromSlash(p)); d != "." {
		for q := filepath.ToSlash(d); q != "."; q = filepath.ToSlash(filepath.Dir(filepath.FromSlash(q))) {
			if k := a.kind(q); k != "folder" && k != "absent" {
				a.must(os.Remove(a.abs(q)))
			}
		}
		a.must(os.MkdirAll(a.abs(filepath.ToSlash(d)), 0o755))
	}
	a.must(os.RemoveAll(a.abs(p))) // RemoveAll removes a link, not its target
}

func (a *agentOps) must(err error) {
	a.t.Helper()
	if err != nil {
		a.t.Fatal(err)
	}
}

// change makes one random change and returns the folder it made ("" when
// it made none) and whether that folder took the place of a file or link.
func (a *agentOps) change() (string, bool) {
	p := agentPaths[a.rng.IntN(len(agentPaths))]
	was := a.kind(p)
	note := func(now string, detail ...string) {
		if was != "absent" && was != now {
			a.seen[was+"->"+now] = true
		}
		a.log = append(a.log, fmt.Sprintf("%s: %s -> %s", p, was, strings.Join(append([]string{now}, detail...), " -> ")))
	}
	switch k := a.rng.IntN(10); {
	case k <= 2: // a file
		a.clear(p)
		a.must(os.WriteFile(a.abs(p), []byte(fmt.Sprintf("agent %d\n", a.rng.IntN(1000))), 0o644))
		note("file")
	case k == 3:
		a.clear(p)
		note("absent")
	case k <= 5: // a folder with files in it
		a.clear(p)
		a.must(os.MkdirAll(a.abs(p+"/inner"), 0o755))
		a.must(os.WriteFile(a.abs(p+"/x"), []byte("x\n"), 0o644))
		a.must(os.WriteFile(a.abs(p+"/inner/y"), []byte("y\n"), 0o644))
		note("folder")
		if was != "folder" {
			return p, was != "absent"
		}
	default: // a link: outside, absolute, looping or to itself
		targets := []struct{ target, kind string }{
			{a.outside, "link absolute"}, {"../shared/.env", "link outside"}, {"/usr/share/zoneinfo", "link absolute"},
			{filepath.Base(p) + "/..", "link loop"}, {filepath.Base(p), "link to itself"}, {"a.txt", ""},
		}
		tg := targets[a.rng.IntN(len(targets))]
		a.clear(p)
		a.must(os.Symlink(tg.target, a.abs(p)))
		if tg.kind != "" {
			a.seen[tg.kind] = true
		}
		if p == "loop-a" {
			// loop-a -> loop-b -> loop-a
			a.clear("loop-b")
			a.must(os.Remove(a.abs(p)))
			a.must(os.Symlink("loop-b", a.abs(p)))
			a.must(os.Symlink("loop-a", a.abs("loop-b")))
			a.seen["link loop"] = true
		}
		note("symlink", tg.target)
	}
	return "", false
}

// worktreeDigest returns path → "mode content-or-target" of every file and
// symlink of the work tree, outside .git. Folders are left out: git
// tracks none, and a folder shows in the paths beneath it.
func worktreeDigest(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" && d.IsDir() {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "symlink " + target
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("file %o %s", fi.Mode().Perm()&0o100, data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkDigest compares the work tree with want, leaving out the user's
// files (checkUserFiles checks those).
func checkDigest(t *testing.T, dir string, want map[string]string, what string) {
	t.Helper()
	got := worktreeDigest(t, dir)
	var diff []string
	for p, w := range want {
		if strings.HasPrefix(filepath.Base(p), "user-") {
			continue
		}
		if g, ok := got[p]; !ok || g != w {
			diff = append(diff, fmt.Sprintf("%s: %q, want %q", p, got[p], w))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok && !strings.HasPrefix(filepath.Base(p), "user-") {
			diff = append(diff, fmt.Sprintf("%s: %q, want nothing", p, g))
		}
	}
	if len(diff) > 0 {
		sort.Strings(diff)
		t.Fatalf("%s: the work tree differs:\n%s", what, strings.Join(diff, "\n"))
	}
}

// checkUserFiles: every file of the user's is there, as they wrote it.
func checkUserFiles(t *testing.T, r *gittest.Repo, files map[string]string, what string) {
	t.Helper()
	for p, content := range files {
		if got := r.Read(p); got != content {
			t.Fatalf("%s: the user's file %s: %q, want %q", what, p, got, content)
		}
	}
}

// digestOf is gittest.WorktreeDigest of a folder, fatal on error.
func digestOf(t *testing.T, dir string) string {
	t.Helper()
	d, err := gittest.WorktreeDigest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
