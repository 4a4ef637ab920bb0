//go:build !unix

package gittest

import (
	"errors"
	"syscall"
)

// Windows has no root that reads every file, and no user to switch to.
func isRoot() bool { return false }

func nobody() (*syscall.SysProcAttr, error) {
	return nil, errors.New("no user nobody on this platform")
}
