package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/daemonwire"
)

// TestDaemonAnswersRegisteredOps: ops registered with Handle are answered
// to clients of the same work tree, failures and unknown ops come back as
// ErrDaemonRefused, and stopping the daemon lets a request being answered
// finish first.
func TestDaemonAnswersRegisteredOps(t *testing.T) {
	r := watchRepo(t)
	d := openWS(t, r.Dir).NewDaemon(nil)
	started, release := make(chan struct{}), make(chan struct{})
	d.Handle("echo", func(_ context.Context, p json.RawMessage) (json.RawMessage, error) { return p, nil })
	d.Handle("fail", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New("no such thing")
	})
	d.Handle("panic", func(context.Context, json.RawMessage) (json.RawMessage, error) { panic("a bug") })
	d.Handle("slow", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		close(started)
		<-release
		return json.RawMessage(`"late"`), nil
	})
	if err := d.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- d.Serve(context.Background(), 0) }()
	defer d.Close()

	ctx := context.Background()
	w := openWS(t, r.Dir)
	sock, top := w.DaemonSocket(), w.repo.WorkTree
	if sock != daemonwire.Socket(w.repo.GitDir) {
		t.Fatalf("DaemonSocket %s, DaemonSocketIn %s", sock, daemonwire.Socket(w.repo.GitDir))
	}
	out, err := daemonwire.Ask(ctx, sock, top, "echo", json.RawMessage(`{"a":1}`))
	if err != nil || string(out) != `{"a":1}` {
		t.Fatalf("echo: %s, %v", out, err)
	}
	for _, c := range []struct{ op, workTree, says string }{
		{"fail", top, "no such thing"},
		{"nope", top, `unknown op "nope"`},
		{"panic", top, "panic failed: a bug"},
		{"echo", filepath.Join(top, "elsewhere"), "another work tree"},
	} {
		_, err := daemonwire.Ask(ctx, sock, c.workTree, c.op, nil)
		if !errors.Is(err, ErrDaemonRefused) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s for %s: %v, want ErrDaemonRefused saying %q", c.op, c.workTree, err, c.says)
		}
	}
	if st := d.Status(); st.Ops != 1 {
		t.Errorf("status counts %d ops answered, want 1 (the echo)", st.Ops)
	}
	if _, err := daemonwire.Ask(ctx, filepath.Join(t.TempDir(), "none.sock"), top, "echo", nil); !errors.Is(err, ErrNoDaemon) {
		t.Errorf("no socket: %v, want ErrNoDaemon", err)
	}

	type result struct {
		out json.RawMessage
		err error
	}
	slow := make(chan result, 1)
	go func() {
		out, err := daemonwire.Ask(ctx, sock, top, "slow", nil)
		slow <- result{out, err}
	}()
	<-started
	d.Stop()
	select {
	case err := <-served:
		t.Fatalf("Serve returned (%v) while a request was being answered", err)
	default:
	}
	close(release)
	if got := <-slow; got.err != nil || string(got.out) != `"late"` {
		t.Errorf("the request answered while stopping: %s, %v", got.out, got.err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func TestDaemonHandleRefusesOwnOps(t *testing.T) {
	d := openWS(t, watchRepo(t).Dir).NewDaemon(nil)
	defer d.Close()
	defer func() {
		if recover() == nil {
			t.Error("Handle took over the daemon's own snapshot op")
		}
	}()
	d.Handle("snapshot", func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil })
}

// TestDaemonListenWaitsForStoppingDaemon: a daemon that stopped listening
// (its socket is gone) but has not let go of its lock yet does not keep a
// new one from starting.
func TestDaemonListenWaitsForStoppingDaemon(t *testing.T) {
	r := watchRepo(t)
	d1 := openWS(t, r.Dir).NewDaemon(nil)
	if err := d1.Listen(); err != nil {
		t.Fatal(err)
	}
	d1.Stop() // closes the listener, which removes the socket; the lock stays
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		time.Sleep(100 * time.Millisecond)
		d1.Close()
	}()
	d2 := openWS(t, r.Dir).NewDaemon(nil)
	defer d2.Close()
	if err := d2.Listen(); err != nil {
		t.Fatalf("Listen while the other daemon was stopping: %v", err)
	}
	<-closed
}
