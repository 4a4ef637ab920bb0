package hookserve_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/hookserve"
	"github.com/gitguard/gitguard/internal/gittest"
)

// A daemon makes the spare files once its watcher is armed, before any
// event, so that the first tool use's packs take them too; Close leaves
// the user's state as it was.
func TestDaemonMakesSparesAtStart(t *testing.T) {
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("init")
	user := userState(t, r)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := func(ctx context.Context, dir string) (*gitguard.Guard, error) {
		return gitguard.Open(ctx, dir, gitguard.Options{})
	}
	g, err := open(ctx, r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	d, err := hookserve.NewDaemon(ctx, g, hookserve.Options{Open: open, Getenv: func(string) string { return "" },
		Agents: []hookserve.Agent{{Name: "none", Read: func(io.Reader, []string) (*agent.Event, error) { return &agent.Event{}, nil }}}})
	if err != nil {
		t.Fatal(err)
	}
	spares := filepath.Join(r.Dir, ".git", "gitguard", "spares")
	deadline := time.Now().Add(20 * time.Second)
	for {
		entries, _ := os.ReadDir(spares)
		if len(entries) == 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("spares after the daemon started: %d files, want 6", len(entries))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if got := userState(t, r); got != user {
		t.Errorf("user state changed:\n%s\nwant\n%s", got, user)
	}
}

// userState is what invariant 1 says no command but undo changes.
func userState(t *testing.T, r *gittest.Repo) string {
	t.Helper()
	s, err := gittest.UserState(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
