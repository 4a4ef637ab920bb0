package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
)

// gitguardCmd runs the gitguard binary testscript installed on PATH.
func gitguardCmd(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	bin, err := exec.LookPath("gitguard")
	if err != nil {
		t.Fatalf("gitguard not on PATH: %v", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}

const crashFiles = 6

// crashRepo builds a repository where one agent call changed crashFiles
// files and the user then edited one of them far from the agent's hunk,
// so an undo restores some files and merges one.
func crashRepo(t *testing.T) *gittest.Repo {
	r := gittest.New(t)
	for i := 0; i < crashFiles; i++ {
		r.Write(fmt.Sprintf("f%d.txt", i), "1\n2\n3\n4\n5\n6\n7\n8\n")
	}
	r.Commit("init")
	mustRun(t, r.Dir, "start", "--run", "crash")
	mustRun(t, r.Dir, "call", "start", "c1", "--tool", "bash")
	for i := 0; i < crashFiles; i++ {
		r.Write(fmt.Sprintf("f%d.txt", i), "1\nagent\n3\n4\n5\n6\n7\n8\n")
	}
	r.Write("new.txt", "created by the agent\n")
	mustRun(t, r.Dir, "call", "finish", "c1")
	r.Write("f0.txt", "1\nagent\n3\n4\n5\n6\n7\nuser\n")
	return r
}

func mustRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitguardCmd(t, dir, nil, args...)
	if err != nil {
		t.Fatalf("gitguard %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TestUndoCrashConverges kills undo after each file write and checks that
// every file is whole (before or after, never half-written), that git's
// state is intact, and that running undo again ends exactly where an
// uninterrupted undo ends, and that redo then restores the pre-undo files.
func TestUndoCrashConverges(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	ref := crashRepo(t)
	preUndo, err := gittest.WorktreeDigest(ref.Dir)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, ref.Dir, "undo")
	want, err := gittest.WorktreeDigest(ref.Dir)
	if err != nil {
		t.Fatal(err)
	}
	writes := crashFiles + 1 // six restores (one a merge) and one delete
	for k := 1; k <= writes; k++ {
		t.Run(fmt.Sprintf("kill after write %d", k), func(t *testing.T) {
			r := crashRepo(t)
			user, err := gittest.UserState(r.Dir, false)
			if err != nil {
				t.Fatal(err)
			}
			out, err := gitguardCmd(t, r.Dir, []string{fmt.Sprintf("GITGUARD_FAULT=undo.write:%d", k)}, "undo")
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 {
				t.Fatalf("undo was not killed at write %d: %v\n%s", k, err, out)
			}
			for i := 0; i < crashFiles; i++ {
				got := r.Read(fmt.Sprintf("f%d.txt", i))
				ok := got == "1\n2\n3\n4\n5\n6\n7\n8\n" || got == "1\nagent\n3\n4\n5\n6\n7\n8\n" ||
					got == "1\nagent\n3\n4\n5\n6\n7\nuser\n" || got == "1\n2\n3\n4\n5\n6\n7\nuser\n"
				if !ok {
					t.Errorf("f%d.txt half-written after the kill: %q", i, got)
				}
			}
			if out, err := git.Run(context.Background(), r.Dir, "fsck", "--strict", "--no-progress"); err != nil {
				t.Fatalf("git fsck after kill: %v\n%s", err, out)
			}
			mustRun(t, r.Dir, "undo")
			got, err := gittest.WorktreeDigest(r.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("re-run undo differs from an uninterrupted undo:\n%s", gittest.Diff(want, got))
			}
			mustRun(t, r.Dir, "redo")
			got, err = gittest.WorktreeDigest(r.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if got != preUndo {
				t.Errorf("redo after an interrupted undo differs from the pre-undo state:\n%s", gittest.Diff(preUndo, got))
			}
			if after, _ := gittest.UserState(r.Dir, false); after != user {
				t.Errorf("invariant 1 broken:\n%s", gittest.Diff(user, after))
			}
		})
	}
}
