//go:build !linux

package workspace

import (
	"fmt"
	"runtime"
)

// watchable: gitguard watches work trees on Linux only (see ErrNoWatcher).
func watchable(string) error { return fmt.Errorf("%w (%s)", ErrNoWatcher, runtime.GOOS) }
