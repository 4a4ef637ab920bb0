package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// A short-lived command collects nothing below its limit; the first
// collection puts Go's defaults back.
func TestShortLivedGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	shortLivedGC(func(string) string { return "" })
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("GC percent %d after shortLivedGC, want -1 (off)", got)
	}
	if got := debug.SetMemoryLimit(-1); got != shortLivedHeap {
		t.Fatalf("memory limit %d after shortLivedGC, want %d", got, shortLivedHeap)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		runtime.GC() // what reaching the limit does
		if debug.SetMemoryLimit(-1) == math.MaxInt64 {
			if got := debug.SetGCPercent(-1); got != 100 {
				t.Errorf("GC percent %d after the first collection, want 100", got)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the first collection did not put Go's defaults back")
}

// GOGC or GOMEMLIMIT in the environment are left alone.
func TestShortLivedGCLeavesEnvironment(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, name := range []string{"GOGC", "GOMEMLIMIT"} {
		shortLivedGC(func(k string) string {
			if k == name {
				return "50"
			}
			return ""
		})
		if got := debug.SetGCPercent(-1); got != 100 {
			t.Errorf("%s set: GC percent %d, want it left at 100", name, got)
		}
		debug.SetGCPercent(100)
	}
}
