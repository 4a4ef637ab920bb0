package main

import (
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/gitguard/gitguard/internal/fault"
)

// installFaults arms the crash points named in GITGUARD_FAULT, a
// comma-separated list of POINT:N (kill this process with SIGKILL the N-th
// time POINT is reached). Tests use it to prove crash consistency; it is
// not meant for users.
//
// With GITGUARD_FAULT_LOG=FILE every point reached is also appended to FILE,
// one name a line, so that a test can first count the points an
// uninterrupted command passes and then kill it at each of them.
func installFaults(spec string) {
	installFaultLog(os.Getenv("GITGUARD_FAULT_LOG"))
	if spec == "" {
		return
	}
	want := map[string]int{}
	for _, item := range strings.Split(spec, ",") {
		name, n, _ := strings.Cut(item, ":")
		count, err := strconv.Atoi(n)
		if err != nil || count < 1 {
			count = 1
		}
		want[name] = count
	}
	var mu sync.Mutex
	seen := map[string]int{}
	prev := fault.Hook
	fault.Hook = func(point string) {
		if prev != nil {
			prev(point)
		}
		mu.Lock()
		seen[point]++
		hit := want[point] != 0 && seen[point] == want[point]
		mu.Unlock()
		if hit {
			if self, err := os.FindProcess(os.Getpid()); err == nil {
				_ = self.Kill() // SIGKILL; TerminateProcess on Windows
			}
			select {} // never returns: the signal is on its way
		}
	}
}

// installFaultLog makes every fault point append its name to the file at
// path (nothing when path is empty). The file is opened for appending, so
// a kill loses nothing written before it.
func installFaultLog(path string) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return // a test helper only: the count will be missing and the test says so
	}
	var mu sync.Mutex
	fault.Hook = func(point string) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = f.WriteString(point + "\n")
	}
}
