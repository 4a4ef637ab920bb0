//go:build windows

package atomicfile

import (
	"errors"
	"syscall"
)

// Windows error codes a rename returns while another process has the file
// open without sharing deletion.
const (
	errorAccessDenied     syscall.Errno = 5
	errorSharingViolation syscall.Errno = 32
	errorLockViolation    syscall.Errno = 33
)

// retryable reports whether a failed rename may succeed once another
// process closes the file.
func retryable(err error) bool {
	return errors.Is(err, errorAccessDenied) || errors.Is(err, errorSharingViolation) || errors.Is(err, errorLockViolation)
}
