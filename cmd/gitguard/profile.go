package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the whole command to the file named
// by GITGUARD_CPUPROFILE, if set, for `go tool pprof`. The returned function
// stops it.
func startProfile(getenv func(string) string, stderr io.Writer) func() {
	name := getenv("GITGUARD_CPUPROFILE")
	if name == "" {
		return func() {}
	}
	f, err := os.Create(name)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "gitguard: warning: no CPU profile: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// heapProfiles makes a watch daemon write a profile of its heap to the file
// named by GITGUARD_HEAPPROFILE, if set, for `go tool pprof
// -sample_index=inuse_space`: when asked (SIGUSR1, where there is one) and
// when the returned function is called, before the daemon lets go of what
// it holds. Each profile replaces the last one at once (written beside it,
// then renamed), after a garbage collection, so it shows what is still held.
func heapProfiles(getenv func(string) string, log func(msg string, args ...any)) func() {
	name := getenv("GITGUARD_HEAPPROFILE")
	if name == "" {
		return func() {}
	}
	write := func() {
		if err := writeHeapProfile(name); err != nil {
			log("watch daemon: heap profile", "err", err)
		}
	}
	stop := onProfileSignal(write)
	return func() {
		stop()
		write()
	}
}

func writeHeapProfile(name string) error {
	runtime.GC()
	tmp := name + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	err = pprof.Lookup("heap").WriteTo(f, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	return err
}
