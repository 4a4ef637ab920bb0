//go:build windows

package main

import (
	"os"
	"syscall"
)

// childSignals are the console events gitguard run catches while its
// command runs (Ctrl-C, Ctrl-Break; closing the console), so that it
// outlives the command and records its end.
var childSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// forwardSignal does nothing on Windows: console events go to every
// process attached to the console, the command included, and Windows has
// no other signal to pass on.
func forwardSignal(*os.Process, os.Signal, bool) {}
