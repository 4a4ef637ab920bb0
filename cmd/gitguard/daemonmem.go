package main

import (
	"runtime"
	"runtime/debug"
	"time"
)

// daemonGCPercent is the garbage collector's GOGC in a process that serves
// a watch daemon: the heap may grow to 1.5 times what was live at the last
// collection, not twice. The daemon's live heap is small (some 10-15 MiB
// for a work tree of 10,000 files: its view of the tree, the trimmed
// caches, an event's working set) and a collection of it costs a few
// milliseconds, while with Go's default the headroom (5-6 MiB of its
// resident set in a long session) doubled after an event or a merge that
// held more than usual.
const daemonGCPercent = 50

// daemonGC sets the garbage collector of a long-lived daemon process
// (daemonGCPercent), unless GOGC or GOMEMLIMIT in the environment rule.
// No memory limit is set: one low enough to matter for a small work tree
// would make the collector run without pause on a large one, whose view
// alone may be bigger.
func daemonGC(getenv func(string) string) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(daemonGCPercent)
}

// returnMemoryEvery is how often a watch daemon gives back to the system
// the memory its heap holds free (returnFreeMemory).
const returnMemoryEvery = 30 * time.Second

// returnMemoryAbove is the free heap memory a daemon keeps without giving
// it back: what an event or two allocate anyway.
const returnMemoryAbove = 4 << 20

// returnFreeMemory gives back to the system, every interval, the memory
// the heap holds free once more than returnMemoryAbove of it is. Go's
// scavenger returns it slowly, so a burst (a new run's first snapshot, a
// merge of large packs) otherwise stays in a long-lived daemon's resident
// set for minutes. It stops when the returned function is called.
func returnFreeMemory(interval time.Duration) (stop func()) {
	t := time.NewTicker(interval)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-t.C:
				if heldFree() > returnMemoryAbove {
					debug.FreeOSMemory()
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		t.Stop()
		close(done)
	}
}

// heldFree is the heap memory the process holds that no object uses.
func heldFree() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapIdle - m.HeapReleased
}
