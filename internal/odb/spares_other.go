//go:build !unix

package odb

import "os"

// singleLink reports whether fi is of a file with one name only. Where the
// link count is not at hand no file passes, and packs make their own files.
func singleLink(os.FileInfo) bool { return false }
