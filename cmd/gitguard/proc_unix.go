//go:build unix

package main

import (
	"os"
	"syscall"
)

// childSignals are the signals gitguard run catches while its command
// runs, so that it outlives the command and records its end.
var childSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// forwardSignal passes a signal sent to gitguard alone on to the command.
// A terminal's Ctrl-C reaches the command by itself: it stays in
// gitguard's process group, so it is not sent twice.
func forwardSignal(p *os.Process, s os.Signal, interactive bool) {
	if s == syscall.SIGINT && interactive {
		return // the terminal sent it to the child too
	}
	_ = p.Signal(s)
}
