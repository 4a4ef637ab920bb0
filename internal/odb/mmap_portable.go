//go:build !unix || gitguard_portable

package odb

import (
	"bytes"
	"io"
	"os"
)

// maxReadWhole bounds the files read whole in place of a mapping: a
// bigger pack is left to go-git, which reads what it needs.
const maxReadWhole = 256 << 20

// mapFile reads a whole file into memory where gitguard maps no files (on
// Windows a mapped pack could not be deleted by git gc until gitguard
// exits). A file shorter than minSize, larger than maxReadWhole or not
// starting with magic is errNotHere: go-git reads what this package does not.
func mapFile(path string, minSize int, magic []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() < int64(minSize) || fi.Size() > maxReadWhole {
		return nil, errNotHere
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(data, magic) {
		return nil, errNotHere
	}
	return data, nil
}

// unmapFile releases what mapFile returned: the garbage collector does.
func unmapFile([]byte) {}

// releaseFile: what mapFile read is the process's own memory, kept.
func releaseFile([]byte) {}
