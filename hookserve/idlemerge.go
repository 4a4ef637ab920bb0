package hookserve

import (
	"sync"
	"time"
)

// DefaultMergeIdle is how long a watch daemon waits after the last hook
// event it recorded before it merges gitguard's packs: an agent's next tool
// use usually follows within it when the agent does not wait on a model.
const DefaultMergeIdle = 300 * time.Millisecond

// idleMerger runs merge once no poke came for delay: a call's start and
// finish each write a pack and leave merging them to commands nobody waits
// on, and while an agent works through a daemon that is the daemon between
// two events. Without it the packs pile up to the bound at which an event
// merges them itself, every event's lookups reading one more index each
// time, and one event in some twenty-five paying for the merge.
type idleMerger struct {
	delay time.Duration
	merge func()

	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
	running sync.WaitGroup
}

func newIdleMerger(delay time.Duration, merge func()) *idleMerger {
	return &idleMerger{delay: delay, merge: merge}
}

// poke moves the merge to delay from now.
func (m *idleMerger) poke() {
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

func (m *idleMerger) fire() {
	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		return
	}
	m.running.Add(1)
	m.mu.Unlock()
	defer m.running.Done()
	m.merge()
}

// stop cancels a pending merge and waits for one under way, so that the
// process does not exit in the middle of writing a pack.
func (m *idleMerger) stop() {
	m.mu.Lock()
	m.stopped = true
	if m.timer != nil {
		m.timer.Stop()
	}
	m.mu.Unlock()
	m.running.Wait()
}
