//go:build windows

package hookserve

import "syscall"

// detachedAttr starts a process without a console and in a process group
// of its own, so the console's Ctrl-C and its closing do not reach it.
func detachedAttr() *syscall.SysProcAttr {
	const detachedProcess = 0x00000008 // DETACHED_PROCESS
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess, HideWindow: true}
}
