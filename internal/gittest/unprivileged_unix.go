//go:build unix

package gittest

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

func isRoot() bool { return os.Geteuid() == 0 }

// nobody is the credential of the user nobody, without supplementary groups.
func nobody() (*syscall.SysProcAttr, error) {
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, err
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("uid of nobody %q: %w", u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("gid of nobody %q: %w", u.Gid, err)
	}
	if uid == 0 {
		return nil, fmt.Errorf("user nobody has uid 0")
	}
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: false}}, nil
}
