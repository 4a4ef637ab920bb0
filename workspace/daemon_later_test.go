package workspace

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/gittest"
)

// Work a request left running after its answer (Later) holds every later
// request but a status, and Close: a client asking the daemon to settle
// over its socket gets its answer only once that work is done, as does a
// snapshot; a status is answered meanwhile; Close returns after it. Work
// that panics does not take the daemon down.
func TestLaterHoldsLaterRequests(t *testing.T) {
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("init")
	d := openWS(t, r.Dir).NewDaemon(nil)
	if err := d.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- d.Serve(context.Background(), 0) }()
	client := openWS(t, r.Dir, useDaemon)
	ctx := context.Background()

	// Work that panics is logged, and releases what waits for it.
	d.Later(func() { panic("a bug") })
	var ans daemonAnswer
	if err := client.callDaemon(ctx, daemonRequest{Op: "settle"}, &ans); err != nil || ans.Error != "" {
		t.Fatalf("settle after work that panicked: %v %q", err, ans.Error)
	}

	gate := make(chan struct{})
	var done atomic.Bool
	d.Later(func() {
		<-gate
		done.Store(true)
	})
	settled := make(chan bool, 1)
	go func() {
		var ans daemonAnswer
		err := client.callDaemon(ctx, daemonRequest{Op: "settle"}, &ans)
		if err != nil || ans.Error != "" {
			t.Errorf("settle: %v %q", err, ans.Error)
		}
		settled <- done.Load()
	}()
	snapped := make(chan bool, 1)
	go func() {
		// Over the socket, as another process asks (askDaemon asks this
		// process's daemon directly: the work left running takes its
		// snapshots so).
		var ans daemonAnswer
		err := client.callDaemon(ctx, daemonRequest{Op: "snapshot", WorkTree: r.Dir, Fingerprint: client.Fingerprint()}, &ans)
		if err != nil || ans.Error != "" || ans.Snapshot == nil {
			t.Errorf("snapshot: %v %q", err, ans.Error)
		}
		snapped <- done.Load()
	}()
	// A status is not held.
	if st, err := client.DaemonStatus(ctx, false); err != nil || st.PID == 0 {
		t.Fatalf("status while work is left running: %+v, %v", st, err)
	}
	time.Sleep(100 * time.Millisecond) // the two requests reach the daemon
	close(gate)
	if !<-settled {
		t.Error("settle was answered before the work left running was done")
	}
	if !<-snapped {
		t.Error("a snapshot was answered before the work left running was done")
	}

	// Close waits for such work too.
	gate = make(chan struct{})
	done.Store(false)
	d.Later(func() {
		<-gate
		done.Store(true)
	})
	closed := make(chan bool, 1)
	go func() {
		d.Close()
		closed <- done.Load()
	}()
	time.Sleep(50 * time.Millisecond)
	close(gate)
	if !<-closed {
		t.Error("Close returned before the work left running was done")
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	// With no daemon, a client settles at once.
	if err := SettleDaemon(ctx, client.repo.GitDir); err != nil {
		t.Fatalf("settle with no daemon: %v", err)
	}
}
