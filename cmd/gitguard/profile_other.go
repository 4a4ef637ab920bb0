//go:build !unix

package main

// onProfileSignal: no signal asks for a profile here; one is written when
// the daemon stops.
func onProfileSignal(func()) func() { return func() {} }
