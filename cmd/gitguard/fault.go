package main

import (
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/gitguard/gitguard/internal/fault"
)

// installFaults arms the crash points named in GITGUARD_FAULT, a
// comma-separated list of POINT:N (kill this process with SIGKILL the N-th
// time POINT is reached). Tests use it to prove crash consistency; it is
// not meant for users.
func installFaults(spec string) {
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
	fault.Hook = func(point string) {
		mu.Lock()
		seen[point]++
		hit := want[point] != 0 && seen[point] == want[point]
		mu.Unlock()
		if hit {
			_ = syscall.Kill(syscall.Getpid(), syscall.SIGKILL)
			select {} // never returns: the signal is on its way
		}
	}
}
