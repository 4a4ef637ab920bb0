//go:build !windows

package atomicfile

// retryable: a rename over an open file succeeds on Unix, so no failure is
// worth another try.
func retryable(error) bool { return false }
