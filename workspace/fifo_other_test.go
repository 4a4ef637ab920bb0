//go:build !unix

package workspace

import "errors"

// mkfifo: this platform has no named pipes in the file system.
func mkfifo(string) error { return errors.New("no named pipes here") }
