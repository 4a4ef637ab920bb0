//go:build unix

package odb

import (
	"os"
	"syscall"
)

// singleLink reports whether fi is of a file with one name only.
func singleLink(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 1
}
