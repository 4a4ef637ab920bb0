// Command gen builds a deterministic benchmark repository for bench/run.sh:
// N tracked files in folders of about 50, committed with git at a fixed
// date and packed, then 20 tracked files modified, 10 untracked files added and an
// ignored build folder of 500 files.
//
//	go run ./bench/gen -files 100000 -out /tmp/gg-100k
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

func main() {
	files := flag.Int("files", 10000, "number of tracked files")
	out := flag.String("out", "", "folder to create (must not exist)")
	perDir := flag.Int("per-dir", 50, "files per folder")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gen: -out is required")
		os.Exit(2)
	}
	if err := gen(*out, *files, *perDir); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// path returns the repository path of tracked file i: two levels of
// folders, so that each leaf folder holds perDir files.
func path(i, files, perDir int) string {
	dirs := (files + perDir - 1) / perDir
	top := int(math.Ceil(math.Sqrt(float64(dirs))))
	d := i / perDir
	return fmt.Sprintf("d%03d/s%03d/f%05d.txt", d/top, d%top, i)
}

// content is deterministic and of varied size (a few hundred bytes).
func content(i int, tag string) []byte {
	var b []byte
	for l := 0; l < 3+i%17; l++ {
		b = fmt.Appendf(b, "file %d line %d %s lorem ipsum dolor sit amet\n", i, l, tag)
	}
	return b
}

func write(root, rel string, data []byte) error {
	full := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return os.WriteFile(full, data, 0o644)
}

func git(dir string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com",
		"GIT_AUTHOR_DATE=1700000000 +0000", "GIT_COMMITTER_DATE=1700000000 +0000")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %v: %w", args, err)
	}
	return nil
}

func gen(root string, files, perDir int) error {
	if _, err := os.Stat(root); err == nil {
		return fmt.Errorf("%s exists", root)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	if err := git(root, "init", "-q", "-b", "main"); err != nil {
		return err
	}
	for i := 0; i < files; i++ {
		if err := write(root, path(i, files, perDir), content(i, "v1")); err != nil {
			return err
		}
	}
	if err := write(root, ".gitignore", []byte("/build/\n*.o\n")); err != nil {
		return err
	}
	if err := git(root, "add", "-A"); err != nil {
		return err
	}
	if err := git(root, "commit", "-q", "-m", "bench repository"); err != nil {
		return err
	}
	// Pack the objects, as a clone would have them.
	if err := git(root, "repack", "-a", "-d", "-q"); err != nil {
		return err
	}
	if err := git(root, "prune-packed"); err != nil {
		return err
	}
	// Let the index become older than anything written from now on, so
	// that no entry is racily clean for git or gitguard.
	time.Sleep(10 * time.Millisecond)
	step := files / 20
	for k := 0; k < 20; k++ {
		if err := write(root, path(k*step+7%step, files, perDir), content(k, "modified")); err != nil {
			return err
		}
	}
	for k := 0; k < 10; k++ {
		rel := fmt.Sprintf("%s/untracked%02d.txt", filepath.Dir(path(k*files/10, files, perDir)), k)
		if err := write(root, rel, content(k, "untracked")); err != nil {
			return err
		}
	}
	for k := 0; k < 500; k++ {
		if err := write(root, fmt.Sprintf("build/obj%02d/out%03d.o", k/50, k), content(k, "object")); err != nil {
			return err
		}
	}
	// Refresh the index once, as any git status would, so every run starts
	// from the same stat data.
	return git(root, "update-index", "-q", "--refresh")
}
