package git_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
)

// Where PATH finds git is remembered while PATH is the same and the file
// is there, and looked up again otherwise.
func TestLookGitFollowsPath(t *testing.T) {
	name := "git"
	if runtime.GOOS == "windows" {
		name = "git.exe"
	}
	fake := func() (dir, path string) {
		dir = t.TempDir()
		path = filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return dir, path
	}
	first, firstGit := fake()
	second, secondGit := fake()
	look := func(want string) {
		t.Helper()
		for range 2 { // looked up, then answered from memory
			if got, err := git.LookGit(); err != nil || got != want {
				t.Fatalf("lookGit() = %q, %v; want %q", got, err, want)
			}
		}
	}
	t.Setenv("PATH", first)
	look(firstGit)
	t.Setenv("PATH", second)
	look(secondGit)
	t.Setenv("PATH", first+string(os.PathListSeparator)+second)
	look(firstGit)
	if err := os.Remove(firstGit); err != nil {
		t.Fatal(err)
	}
	look(secondGit)
	if err := os.Remove(secondGit); err != nil {
		t.Fatal(err)
	}
	if got, err := git.LookGit(); err == nil {
		t.Errorf("lookGit() = %q with no git on PATH", got)
	}
}
