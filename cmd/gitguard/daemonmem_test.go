package main

import (
	"runtime"
	"testing"
	"time"
)

// sink keeps a burst's allocations from being optimised away.
var sink [][]byte

// After a burst of allocations is garbage, a daemon gives the memory back
// within an interval or two rather than holding it for the scavenger.
func TestReturnFreeMemory(t *testing.T) {
	for i := 0; i < 64; i++ {
		sink = append(sink, make([]byte, 1<<20))
	}
	sink = nil
	runtime.GC()
	if held := heldFree(); held <= returnMemoryAbove {
		t.Skipf("the runtime already gave the burst back (%d bytes free held)", held)
	}
	stop := returnFreeMemory(10 * time.Millisecond)
	defer stop()
	for deadline := time.Now().Add(10 * time.Second); heldFree() > returnMemoryAbove; {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes of free heap still held", heldFree())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
