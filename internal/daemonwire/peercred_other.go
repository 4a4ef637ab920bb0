//go:build !linux && !darwin

package daemonwire

import (
	"errors"
	"syscall"
)

// PeerUID cannot tell who is at the other end of conn here, so neither
// side of a daemon trusts the other (no daemon runs here anyway: see
// workspace's watchable).
func PeerUID(syscall.Conn) (int, error) {
	return -1, errors.New("peer credentials are not available on this platform")
}
