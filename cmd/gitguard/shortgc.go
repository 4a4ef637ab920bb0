package main

import (
	"math"
	"runtime"
	"runtime/debug"
)

// shortLivedHeap is the heap a short-lived command grows to before it
// collects garbage at all: more than a path-scoped call allocates (a few
// MiB) and than a whole-tree snapshot of 100,000 files does (about 30
// MiB), less than one of a work tree ten times that size.
const shortLivedHeap = 64 << 20

// shortLivedGC tunes the garbage collector for a command that exits within
// a fraction of a second: an agent hook, a call's start and finish, and
// the commands that walk the whole tree once (snapshot, status, check,
// start, finish, undo). With Go's default a collection cycle starts at 4
// MiB, and its background workers and the threads they need cost such a
// process more than the memory it frees: for a call, 1-2 ms of CPU; for a
// snapshot of 100,000 files, two cycles running beside the index's
// parsing and the walk on the same two cores, 15 ms of its 125. It
// collects no garbage until the heap reaches shortLivedHeap; that first
// collection (the command is walking a huge tree, say) puts Go's defaults
// back, so a command that does need memory is paced as usual rather than
// collecting at a fixed limit. GOGC or GOMEMLIMIT in the environment are
// left to rule.
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
