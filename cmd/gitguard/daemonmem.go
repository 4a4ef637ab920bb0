package main

import (
	"runtime"
	"runtime/debug"
	"time"
)

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
