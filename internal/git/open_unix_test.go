//go:build unix

package git_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
)

// TestOpenConfigCacheNotAFile: a fifo or a symlink in the configuration
// cache's place is not read (a fifo would block every command): the
// configuration comes from git, and a cache is written in its place.
func TestOpenConfigCacheNotAFile(t *testing.T) {
	defer git.SetRacyWindow(0)()
	plant := map[string]func(path string) error{
		"fifo":    func(path string) error { return syscall.Mkfifo(path, 0o644) },
		"symlink": func(path string) error { return os.Symlink("/dev/zero", path) },
	}
	for name, plantAt := range plant {
		t.Run(name, func(t *testing.T) {
			r := gittest.New(t)
			r.Commit("init")
			r.Git("config", "gitguard.marker", name)
			path := filepath.Join(r.Dir, ".git", "gitguard", "config-cache")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := plantAt(path); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			done := make(chan error, 1)
			var cfg git.Config
			go func() {
				var err error
				_, cfg, err = git.Open(ctx, r.Dir, os.Getenv)
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-ctx.Done():
				t.Fatal("git.Open blocked on the planted configuration cache")
			}
			if v, _ := cfg.Get("gitguard.marker"); v != name {
				t.Errorf("gitguard.marker = %q, want %q", v, name)
			}
			if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("the planted %s was not replaced by a cache: %v", name, err)
			}
		})
	}
}
