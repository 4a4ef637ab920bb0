//go:build !unix || gitguard_portable

package workspace

import "os"

// indexData returns the content of the open index file f of size bytes
// and the function that releases it.
func indexData(f *os.File, size int64) ([]byte, func(), error) {
	return readIndexData(f, size)
}
