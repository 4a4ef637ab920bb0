//go:build windows

package workspace

import "os"

// lockOnce is never reached on Windows: Daemon.Listen stops at watchable.
func lockOnce(*os.File) error { return ErrNoWatcher }

// checkSocket: no daemon serves a work tree on Windows, so clients walk.
func checkSocket(string) error { return ErrNoDaemon }
