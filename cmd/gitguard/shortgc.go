package main

import (
	"math"
	"runtime"
	"runtime/debug"
)

// shortLivedHeap is the heap a short-lived command grows to before it
// collects garbage at all: more than a path-scoped call allocates (a few
// MiB), less than a whole-tree snapshot of a large work tree does.
const shortLivedHeap = 64 << 20

// shortLivedGC tunes the garbage collector for a command that records one
// call and exits within milliseconds (an agent hook, call start, call
// finish): with Go's default a collection cycle starts at 4 MiB, and its
// background workers and the threads they need cost such a process more
// (about 1-2 ms of CPU) than the memory it frees. It collects no garbage
// until the heap reaches shortLivedHeap; that first collection (the
// command is walking a large tree, say) puts Go's defaults back, so a
// command that does need memory is paced as usual rather than collecting
// at a fixed limit. GOGC or GOMEMLIMIT in the environment are left to
// rule.
func shortLivedGC(getenv func(string) string) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(shortLivedHeap)
	debug.SetGCPercent(-1)
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}

// gcSentinel is an object nothing keeps: its finalizer runs after the
// first collection. It holds a pointer so that it is never batched with
// other tiny objects, whose finalizers may never run.
type gcSentinel struct {
	_ *int
	_ [16]byte
}
