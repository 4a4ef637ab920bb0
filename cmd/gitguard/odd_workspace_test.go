package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/gittest"
)

// TestUndoKeepsCRLF: with core.autocrlf=true the index holds LF blobs
// while the work tree holds CRLF files. An agent's whole-workspace call
// that rewrites a CRLF file must be undone to the exact CRLF bytes, and
// files it did not change must keep theirs.
func TestUndoKeepsCRLF(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	r := gittest.New(t)
	r.Git("config", "core.autocrlf", "true")
	r.Write("a.txt", "one\r\ntwo\r\n")
	r.Write("b.txt", "untouched\r\n")
	r.Commit("init")
	// Check out again so that the work tree is what git writes (CRLF) and
	// the index stat data matches it.
	r.Remove("a.txt")
	r.Remove("b.txt")
	r.Git("checkout", "--", ".")
	// Make the entries not racily clean (older than the index file), as
	// they are in any checkout more than a moment old, so that snapshot
	// trusts their stat data.
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{"a.txt", "b.txt"} {
		if err := os.Chtimes(filepath.Join(r.Dir, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	r.Git("update-index", "--refresh")
	mustRun(t, r.Dir, "start", "--run", "crlf")
	before, _ := gittest.WorktreeDigest(r.Dir)
	mustRun(t, r.Dir, "call", "start", "c1", "--tool", "bash")
	r.Write("a.txt", "one\r\nagent\r\n")
	mustRun(t, r.Dir, "call", "finish", "c1")
	mustRun(t, r.Dir, "undo")
	if got := r.Read("a.txt"); got != "one\r\ntwo\r\n" {
		t.Errorf("undo wrote %q, want the original CRLF bytes %q", got, "one\r\ntwo\r\n")
	}
	if got := r.Read("b.txt"); got != "untouched\r\n" {
		t.Errorf("a file the agent did not change changed: %q", got)
	}
	if after, _ := gittest.WorktreeDigest(r.Dir); after != before {
		t.Errorf("work tree after undo:\n%s", gittest.Diff(before, after))
	}
}

// fakeLFS configures a stand-in for git-lfs (not installed here): clean
// keeps the content in a local object store and stages a pointer; smudge
// reads the content back by its oid.
func fakeLFS(t *testing.T, r *gittest.Repo) {
	t.Helper()
	store := t.TempDir()
	clean := filepath.Join(t.TempDir(), "clean.sh")
	gittest.WriteFile(t, clean, "#!/bin/sh\ntmp=$(mktemp) && cat > \"$tmp\" && oid=$(sha256sum < \"$tmp\" | cut -c1-64) && mv \"$tmp\" \""+store+"/$oid\" && printf 'version https://git-lfs.github.com/spec/v1\\noid sha256:%s\\n' \"$oid\"\n")
	smudge := filepath.Join(t.TempDir(), "smudge.sh")
	gittest.WriteFile(t, smudge, "#!/bin/sh\noid=$(sed -n 's/^oid sha256://p') && cat \""+store+"/$oid\"\n")
	for _, f := range []string{clean, smudge} {
		if err := os.Chmod(f, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r.Git("config", "filter.lfs.clean", clean)
	r.Git("config", "filter.lfs.smudge", smudge)
}

// TestUndoKeepsFilteredContent is TestUndoKeepsCRLF for a clean/smudge
// filter, as Git LFS installs one: the file is recorded as its pointer and
// undo writes the real content back through the smudge filter, for a
// whole-workspace call and for one with the path declared.
func TestUndoKeepsFilteredContent(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	for name, start := range map[string][]string{
		"whole workspace": {"call", "start", "c1", "--tool", "bash"},
		"declared path":   {"call", "start", "c1", "--tool", "edit", "--", "big.bin"},
	} {
		t.Run(name, func(t *testing.T) {
			r := gittest.New(t)
			fakeLFS(t, r)
			r.Git("config", "filter.lfs.required", "true")
			r.Write(".gitattributes", "*.bin filter=lfs\n")
			r.Write("big.bin", "real content\n")
			r.Commit("init")
			if blob := r.Git("cat-file", "-p", ":big.bin"); !strings.HasPrefix(blob, "version https://git-lfs") {
				t.Fatalf("fake filter did not store a pointer: %q", blob)
			}
			mustRun(t, r.Dir, "start", "--run", "lfs")
			mustRun(t, r.Dir, start...)
			r.Write("big.bin", "agent content\n")
			mustRun(t, r.Dir, "call", "finish", "c1")
			// Recorded as git stages it: the pointer, not the object.
			if diff := mustRun(t, r.Dir, "diff", "--call", "c1"); !strings.Contains(diff, "+oid sha256:") || strings.Contains(diff, "agent content") {
				t.Errorf("the patch should be between pointers:\n%s", diff)
			}
			mustRun(t, r.Dir, "undo")
			if got := r.Read("big.bin"); got != "real content\n" {
				t.Errorf("undo wrote %q, want the real content back", got)
			}
		})
	}
}

// TestSubmoduleLeftAlone: a submodule is recorded as a gitlink, never
// descended into; a whole-workspace call that edits inside it records
// nothing there, and undo touches nothing inside it.
func TestSubmoduleLeftAlone(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	r := gittest.New(t)
	sub := filepath.Join(filepath.Dir(r.Dir), "subsrc")
	os.MkdirAll(sub, 0o755)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "s"}} {
		c := exec.Command("git", args...)
		c.Dir = sub
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	gittest.WriteFile(t, filepath.Join(sub, "s.txt"), "sub\n")
	c := exec.Command("sh", "-c", "git add -A && git commit -qm s2")
	c.Dir = sub
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	r.Write("top.txt", "top\n")
	r.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "mod")
	r.Commit("init")
	mustRun(t, r.Dir, "start", "--run", "sm")
	subBefore, _ := gittest.WorktreeDigest(filepath.Join(r.Dir, "mod"))
	dotgit, _ := os.ReadFile(filepath.Join(r.Dir, "mod", ".git"))
	mustRun(t, r.Dir, "call", "start", "c1", "--tool", "bash")
	r.Write("top.txt", "agent\n")
	r.Write("mod/s.txt", "edited inside the submodule\n")
	out := mustRun(t, r.Dir, "call", "finish", "c1", "--json")
	if strings.Contains(out, "mod/s.txt") {
		t.Errorf("a file inside the submodule was recorded:\n%s", out)
	}
	if wt := r.Git("ls-tree", "-r", "refs/agent-checkpoints/runs/sm:worktree"); !strings.Contains(wt, "160000 commit") || strings.Contains(wt, "mod/s.txt") {
		t.Errorf("checkpoint work tree should hold mod as a gitlink only:\n%s", wt)
	}
	mustRun(t, r.Dir, "undo")
	if got := r.Read("top.txt"); got != "top\n" {
		t.Errorf("top.txt not restored: %q", got)
	}
	if got := r.Read("mod/s.txt"); got != "edited inside the submodule\n" {
		t.Errorf("undo touched the submodule: %q", got)
	}
	if d, _ := os.ReadFile(filepath.Join(r.Dir, "mod", ".git")); !bytes.Equal(d, dotgit) {
		t.Errorf("the submodule's .git changed")
	}
	r.Write("mod/s.txt", "sub\n")
	if after, _ := gittest.WorktreeDigest(filepath.Join(r.Dir, "mod")); after != subBefore {
		t.Errorf("submodule files changed:\n%s", gittest.Diff(subBefore, after))
	}
}

// TestSparseAndSkipWorktree: skip-worktree entries and paths outside a
// sparse checkout are not on disk; snapshot and calls must not record them
// as deleted, and undo must not create them.
func TestSparseAndSkipWorktree(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	r := gittest.New(t)
	r.Write("in/a.txt", "a\n")
	r.Write("out/b.txt", "b\n")
	r.Write("skip.txt", "skip\n")
	r.Commit("init")
	r.Git("sparse-checkout", "set", "--no-cone", "/in/", "/skip.txt")
	r.Git("update-index", "--skip-worktree", "skip.txt")
	r.Remove("skip.txt")
	if _, err := os.Stat(filepath.Join(r.Dir, "out")); err == nil {
		t.Fatal("sparse checkout left out/ on disk")
	}
	mustRun(t, r.Dir, "start", "--run", "sparse")
	mustRun(t, r.Dir, "call", "start", "c1", "--tool", "bash")
	r.Write("in/a.txt", "agent\n")
	out := mustRun(t, r.Dir, "call", "finish", "c1", "--json")
	for _, p := range []string{"out/b.txt", "skip.txt"} {
		if strings.Contains(out, p) {
			t.Errorf("%s recorded as changed:\n%s", p, out)
		}
	}
	mustRun(t, r.Dir, "undo")
	for _, p := range []string{"out/b.txt", "skip.txt"} {
		if _, err := os.Lstat(filepath.Join(r.Dir, p)); err == nil {
			t.Errorf("undo created %s", p)
		}
	}
	if got := r.Read("in/a.txt"); got != "a\n" {
		t.Errorf("in/a.txt = %q", got)
	}
}

// TestTenThousandFiles: one whole-workspace call changes 10,000 files;
// status lists them all and undo restores them all.
func TestTenThousandFiles(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	if testing.Short() {
		t.Skip("writes 10,000 files several times")
	}
	const n = 10000
	r := gittest.New(t)
	for i := 0; i < n; i++ {
		gittest.WriteFile(t, filepath.Join(r.Dir, fmt.Sprintf("d%02d/f%05d.txt", i%100, i)), fmt.Sprintf("%d\n", i))
	}
	// The fixture's 10,000 loose objects need no fsync of their own (what
	// is tested is gitguard's work on them): r.Commit less git's fsyncs.
	r.Git("-c", "core.fsync=none", "add", "-A")
	r.Git("commit", "-q", "-m", "init")
	mustRun(t, r.Dir, "start", "--run", "many")
	before, _ := gittest.WorktreeDigest(r.Dir)
	mustRun(t, r.Dir, "call", "start", "c1", "--tool", "bash")
	for i := 0; i < n; i++ {
		gittest.WriteFile(t, filepath.Join(r.Dir, fmt.Sprintf("d%02d/f%05d.txt", i%100, i)), fmt.Sprintf("agent %d\n", i))
	}
	mustRun(t, r.Dir, "call", "finish", "c1")
	out := mustRun(t, r.Dir, "status")
	if got := strings.Count(out, " applied "); got != n {
		var other []string
		for _, l := range strings.Split(out, "\n") {
			if l != "" && !strings.Contains(l, " applied ") {
				other = append(other, l)
			}
		}
		t.Errorf("status lists %d applied paths, want %d; the others:\n%s\nthe finish checkpoint:\n%.3000s", got, n,
			strings.Join(other, "\n"), mustRun(t, r.Dir, "show", "--json", "ckpt_003"))
	}
	mustRun(t, r.Dir, "undo")
	if after, _ := gittest.WorktreeDigest(r.Dir); after != before {
		t.Errorf("undo did not restore all files:\n%.2000s", gittest.Diff(before, after))
	}
}

// TestHugeFile: a 1 GiB (sparse) file, over the size limit, is recorded
// by hash through snapshot and a call, with the gitguard process's peak
// memory far below the file's size.
func TestHugeFile(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	if testing.Short() {
		t.Skip("hashes a 1 GiB file")
	}
	r := gittest.New(t)
	r.Write("small.txt", "s\n")
	r.Commit("init")
	mustRun(t, r.Dir, "start", "--run", "huge")
	big := filepath.Join(r.Dir, "huge.bin")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var peak int64
	measured := false
	run := func(args ...string) string {
		bin, _ := exec.LookPath("gitguard")
		cmd := exec.Command(bin, args...)
		cmd.Dir = r.Dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("gitguard %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		if rss, ok := peakRSS(cmd.ProcessState); ok {
			measured, peak = true, max(peak, rss)
		}
		return out.String()
	}
	run("snapshot")
	run("call", "start", "c1", "--tool", "bash")
	fh, _ := os.OpenFile(big, os.O_WRONLY, 0)
	fh.WriteAt([]byte("agent"), 1<<29)
	fh.Close()
	out := run("call", "finish", "c1", "--json")
	if !strings.Contains(out, "huge.bin") {
		t.Errorf("the change to huge.bin was not recorded:\n%s", out)
	}
	run("status")
	if !measured {
		t.Skip("peak RSS is not measured on this platform")
	}
	t.Logf("peak RSS of gitguard: %d MiB for a 1024 MiB file", peak>>20)
	if peak > 256<<20 {
		t.Errorf("peak RSS %d MiB: the file is held in memory", peak>>20)
	}
}
