package main

import "runtime/debug"

// shortLivedHeap is the heap a short-lived command grows to before it
// collects garbage at all: more than a path-scoped call allocates (a few
// MiB), less than the peak of a whole-tree snapshot with collections (about
// 60 MiB on 100k files), which it then bounds.
const shortLivedHeap = 64 << 20

// shortLivedGC tunes the garbage collector for a command that records one
// call and exits within milliseconds (an agent hook, call start, call
// finish): with Go's default a collection cycle starts at 4 MiB, and its
// background workers and the threads they need cost such a process more
// (about 1-2 ms of CPU) than the memory it frees. It collects no garbage
// until the heap nears shortLivedHeap, when the memory limit makes it
// collect as usual. GOGC or GOMEMLIMIT in the environment are left to
// rule.
func shortLivedGC(getenv func(string) string) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(shortLivedHeap)
	debug.SetGCPercent(-1)
}
