package hookserve

import (
	"sync"
	"time"
)

// DefaultMergeIdle is how long a watch daemon waits after the last hook
// event it recorded before it merges gitguard's packs: an agent's next tool
// use usually follows within it when the agent does not wait on a model.
const DefaultMergeIdle = 300 * time.Millisecond

// DefaultSpareIdle is how long a watch daemon waits after a hook event
// before it makes the spare files the next events' packs take: long
// enough for the hook to have its answer, shorter than an agent's tool.
const DefaultSpareIdle = 10 * time.Millisecond

// idleTask runs work once no poke came for delay: work a hook event leaves
// to the daemon between two events, done while nobody waits on it.
//
// One merges packs: a call's start and finish each write a pack and leave
// merging them to commands nobody waits on. Without it the packs pile up
// to the bound at which an event merges them itself, every event's lookups
// reading one more index each time, and one event in some twenty-five
// paying for the merge. Another makes spare files (Guard.MakeSpareFiles).
type idleTask struct {
	delay time.Duration
	work  func()

	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
	running sync.WaitGroup
}

func newIdleTask(delay time.Duration, work func()) *idleTask {
	return &idleTask{delay: delay, work: work}
}

// poke moves the work to delay from now.
func (m *idleTask) poke() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return
	}
	if m.timer != nil {
		m.timer.Stop()
	}
	m.timer = time.AfterFunc(m.delay, m.fire)
}

func (m *idleTask) fire() {
	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		return
	}
	m.running.Add(1)
	m.mu.Unlock()
	defer m.running.Done()
	m.work()
}

// stop cancels pending work and waits for work under way, so that the
// process does not exit in the middle of writing a pack.
func (m *idleTask) stop() {
	m.mu.Lock()
	m.stopped = true
	if m.timer != nil {
		m.timer.Stop()
	}
	m.mu.Unlock()
	m.running.Wait()
}
