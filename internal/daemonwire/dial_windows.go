//go:build windows

package daemonwire

import "os"

// dial: no daemon serves a work tree on Windows (CheckSocket says so first).
func dial(string) (*os.File, error) { return nil, ErrNoDaemon }
