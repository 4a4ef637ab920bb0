package agent

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gitguard/gitguard/record"
)

// TestDerivedCallID: a tool use without an id gets base, then base-2,
// base-3... for the same input again; a before event takes the first id
// not started (or the one a repeated before event started), an after
// event the newest one started.
func TestDerivedCallID(t *testing.T) {
	t.Parallel()
	const (
		started   = record.StatusStarted
		succeeded = record.StatusSucceeded
	)
	for _, c := range []struct {
		name  string
		calls map[record.CallID]record.Status
		pre   bool
		want  record.CallID
	}{
		{"no run, before", nil, true, "b"},
		{"no run, after", nil, false, "b"},
		{"first after its before", map[record.CallID]record.Status{"b": started}, false, "b"},
		{"repeated before", map[record.CallID]record.Status{"b": started}, true, "b"},
		{"same input again", map[record.CallID]record.Status{"b": succeeded}, true, "b-2"},
		{"third use", map[record.CallID]record.Status{"b": succeeded, "b-2": succeeded}, true, "b-3"},
		{"after of the second", map[record.CallID]record.Status{"b": succeeded, "b-2": started}, false, "b-2"},
		{"after of the older of two started", map[record.CallID]record.Status{"b": started, "b-2": succeeded}, false, "b"},
		{"after without a before", map[record.CallID]record.Status{"b": succeeded}, false, "b-2"},
		{"other calls do not count", map[record.CallID]record.Status{"x": started, "b-3": started}, true, "b"},
	} {
		status := func(id record.CallID) (record.Status, bool) {
			st, ok := c.calls[id]
			return st, ok
		}
		if got := derivedCallID("b", status, c.pre); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// TestEndsOther: a starting session ends the active run only when it is
// another session's run of the same agent.
func TestEndsOther(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		active, own record.RunID
		prefix      string
		want        bool
	}{
		{"cx-old", "cx-new", "cx-", true},
		{"cx-new", "cx-new", "cx-", false}, // its own run
		{"", "cx-new", "cx-", false},       // none active
		{"cc-old", "cx-new", "cx-", false}, // another agent's
		{"my-run", "cx-new", "cx-", false}, // the user's
		{"cx-old", "cx-new", "", false},    // the agent ends no others
	} {
		if got := endsOther(c.active, c.own, c.prefix); got != c.want {
			t.Errorf("active %q, own %q, prefix %q: %v, want %v", c.active, c.own, c.prefix, got, c.want)
		}
	}
}

// TestDaemonMarker: the marker names the one run whose hook started the
// watch daemon, under the state folder's agents/, beside the pairing
// state.
func TestDaemonMarker(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "gitguard")
	if daemonMarked(state, "cc-a") {
		t.Fatal("marked before any mark")
	}
	if err := markDaemon(state, "cc-a"); err != nil {
		t.Fatal(err)
	}
	if !daemonMarked(state, "cc-a") || daemonMarked(state, "cc-b") {
		t.Error("the mark of cc-a is not cc-a's alone")
	}
	if err := markDaemon(state, "cc-b"); err != nil {
		t.Fatal(err)
	}
	if daemonMarked(state, "cc-a") || !daemonMarked(state, "cc-b") {
		t.Error("a new mark did not replace the old one")
	}
	if got, want := daemonMarker(state), filepath.Join(state, "agents", "daemon-run"); got != want {
		t.Errorf("marker %s, want %s", got, want)
	}
	if pairingDir(state) != filepath.Dir(daemonMarker(state)) {
		t.Errorf("pairing state in %s, marker in %s: want one folder", pairingDir(state), filepath.Dir(daemonMarker(state)))
	}
	if fi, err := os.Stat(filepath.Dir(daemonMarker(state))); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0) {
		t.Errorf("agents folder: %v, %v; want private to the user", fi, err)
	}
}
