//go:build !unix && !windows

package hookserve

import "syscall"

// detachedAttr has nothing to add where there are neither sessions nor
// consoles.
func detachedAttr() *syscall.SysProcAttr { return nil }
