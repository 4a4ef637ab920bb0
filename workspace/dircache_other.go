//go:build !linux || gitguard_portable

package workspace

// dirTimesKept is false where the walk does not know the file system (see
// dircache_linux.go): every folder is listed.
func dirTimesKept(string) (bool, uint64) { return false, 0 }
