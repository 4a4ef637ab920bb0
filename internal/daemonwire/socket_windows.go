//go:build windows

package daemonwire

// CheckSocket: no daemon serves a work tree on Windows, so clients walk.
func CheckSocket(string) error { return ErrNoDaemon }
