//go:build unix

package hookserve

import "syscall"

// detachedAttr makes a process a session of its own: a terminal's signals
// and the end of the process that started it do not reach it.
func detachedAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
