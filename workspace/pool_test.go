package workspace

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// A task tree of 1+4+16+64 tasks runs every task, on at most n workers at
// once.
func TestPoolRunsNestedTasks(t *testing.T) {
	p := newPool(context.Background(), 3)
	var ran, now, most atomic.Int64
	var task func(depth int) func() error
	task = func(depth int) func() error {
		return func() error {
			n := now.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			defer now.Add(-1)
			ran.Add(1)
			if depth < 3 {
				for range 4 {
					p.Go(task(depth + 1))
				}
			}
			return nil
		}
	}
	p.Go(task(0))
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	if ran.Load() != 85 {
		t.Fatalf("ran %d tasks, want 85", ran.Load())
	}
	if most.Load() > 3 {
		t.Fatalf("%d tasks ran at once, want at most 3", most.Load())
	}
}

// The first error is returned, and tasks queued after it are dropped.
func TestPoolStopsAtFirstError(t *testing.T) {
	p := newPool(context.Background(), 1)
	boom := errors.New("boom")
	var after atomic.Int64
	p.Go(func() error {
		p.Go(func() error { after.Add(1); return nil })
		return boom
	})
	if err := p.Wait(); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if after.Load() != 0 {
		t.Fatal("a task queued before the error ran after it")
	}
	p.Go(func() error { after.Add(1); return nil })
	if after.Load() != 0 {
		t.Fatal("a task queued after the error ran")
	}
}

// A cancelled context stops the pool; Wait reports it.
func TestPoolCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := newPool(ctx, 2)
	var ran atomic.Int64
	p.Go(func() error { ran.Add(1); return nil })
	if err := p.Wait(); !errors.Is(err, context.Canceled) || ran.Load() != 0 {
		t.Fatalf("err = %v, ran %d; want context.Canceled and nothing run", err, ran.Load())
	}
}
