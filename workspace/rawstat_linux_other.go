//go:build linux && !gitguard_portable && !(amd64 || arm64)

package workspace

import "golang.org/x/sys/unix"

// rawFstatat is unix.Fstatat where the raw system call's number and stat
// layout are not known to match (32-bit platforms use fstatat64).
func rawFstatat(fd int, name string, st *unix.Stat_t) error {
	return unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
}
