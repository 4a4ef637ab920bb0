package hookserve_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/gittest"
)

// A daemon makes the spare files once its watcher is armed, before any
// event, so that the first tool use's packs take them too; Close leaves
// the user's state as it was.
func TestDaemonMakesSparesAtStart(t *testing.T) {
	f := serveFake(t, "fk-spares", nil)
	user := userState(t, f.r)
	spares := filepath.Join(f.r.Dir, ".git", "gitguard", "spares")
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
	f.close(t)
	if got := userState(t, f.r); got != user {
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
