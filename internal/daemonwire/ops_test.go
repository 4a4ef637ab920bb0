package daemonwire

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestOpsAnswer: a registered op answers requests for its work tree; a
// handler's error or panic, and a request for another work tree, come back
// as an Error; an op nobody registered is not handled; only answers
// without an error are counted.
func TestOpsAnswer(t *testing.T) {
	t.Parallel()
	ops := NewOps("snapshot")
	ops.Handle("echo", func(_ context.Context, p json.RawMessage) (json.RawMessage, error) { return p, nil })
	ops.Handle("fail", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New("no such thing")
	})
	ops.Handle("panic", func(context.Context, json.RawMessage) (json.RawMessage, error) { panic("a bug") })
	const top = "/work/tree"
	ctx := context.Background()
	for _, c := range []struct {
		op, workTree string
		handled      bool
		want         OpAnswer
	}{
		{"echo", top, true, OpAnswer{Payload: json.RawMessage(`{"a":1}`)}},
		{"fail", top, true, OpAnswer{Error: "no such thing"}},
		{"panic", top, true, OpAnswer{Error: "panic failed: a bug"}},
		{"echo", top + "/elsewhere", true, OpAnswer{Error: "another work tree"}},
		{"nope", top, false, OpAnswer{}},
	} {
		got, handled := ops.Answer(ctx, OpRequest{V: Protocol, Op: c.op, WorkTree: c.workTree, Payload: json.RawMessage(`{"a":1}`)}, top, nil)
		if handled != c.handled || got.Error != c.want.Error || string(got.Payload) != string(c.want.Payload) {
			t.Errorf("%s for %s: %+v (handled %v), want %+v (handled %v)", c.op, c.workTree, got, handled, c.want, c.handled)
		}
	}
	if n := ops.Answered(); n != 1 {
		t.Errorf("Answered %d, want 1 (the echo)", n)
	}
}

// TestOpsOneAtATime: requests for one op are answered one at a time;
// another op is not held up by them.
func TestOpsOneAtATime(t *testing.T) {
	t.Parallel()
	ops := NewOps()
	var inside, most atomic.Int32
	release := make(chan struct{})
	ops.Handle("slow", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		n := inside.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-release
		inside.Add(-1)
		return nil, nil
	})
	ops.Handle("quick", func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil })
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { ops.Answer(context.Background(), OpRequest{Op: "slow"}, "", nil) })
	}
	time.Sleep(20 * time.Millisecond)
	if _, handled := ops.Answer(context.Background(), OpRequest{Op: "quick"}, "", nil); !handled {
		t.Error("quick was not handled while slow ran")
	}
	close(release)
	wg.Wait()
	if m := most.Load(); m != 1 {
		t.Errorf("%d slow requests answered at once, want 1", m)
	}
}

// TestOpsRefusesOwnOps: no handler takes over one of the daemon's own ops.
func TestOpsRefusesOwnOps(t *testing.T) {
	t.Parallel()
	ops := NewOps("snapshot", "status")
	defer func() {
		if recover() == nil {
			t.Error("Handle took over the daemon's own status op")
		}
	}()
	ops.Handle("status", func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil })
}
