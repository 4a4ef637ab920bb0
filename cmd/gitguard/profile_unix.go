//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
)

// onProfileSignal calls write at each SIGUSR1 until the returned function
// is called.
func onProfileSignal(write func()) func() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-c:
				write()
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(c)
		close(done)
	}
}
