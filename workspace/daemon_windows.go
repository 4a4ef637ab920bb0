//go:build windows

package workspace

import "os"

// lockOnce is never reached on Windows: Daemon.Listen stops at watchable.
func lockOnce(*os.File) error { return ErrNoWatcher }
