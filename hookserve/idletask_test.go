package hookserve

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestIdleTaskMergesOncePokesStop(t *testing.T) {
	merged := make(chan struct{}, 10)
	m := newIdleTask(time.Millisecond, func() { merged <- struct{}{} })
	m.poke()
	select {
	case <-merged:
	case <-time.After(10 * time.Second):
		t.Fatal("no merge after a poke")
	}
	m.stop()
	m.poke() // after stop: nothing
	select {
	case <-merged:
		t.Fatal("a merge after stop")
	case <-time.After(50 * time.Millisecond):
	}
}

func TestIdleTaskStopCancelsPending(t *testing.T) {
	var merges atomic.Int32
	m := newIdleTask(time.Hour, func() { merges.Add(1) })
	for range 100 {
		m.poke()
	}
	m.stop()
	if n := merges.Load(); n != 0 {
		t.Fatalf("%d merges; want none before the pause", n)
	}
}

func TestIdleTaskStopWaitsForMerge(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	m := newIdleTask(time.Millisecond, func() {
		close(started)
		<-release
	})
	m.poke()
	<-started
	stopped := make(chan struct{})
	go func() {
		m.stop()
		close(stopped)
	}()
	select {
	case <-stopped:
		t.Fatal("stop returned while a merge was under way")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-stopped
}
