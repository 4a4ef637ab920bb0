//go:build !linux

package workspace

// watchable: gitguard watches work trees on Linux only (see ErrNoWatcher).
func watchable(string) error { return ErrNoWatcher }
