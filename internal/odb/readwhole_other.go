//go:build !unix

package odb

import (
	"io"
	"os"
)

// readWhole reads the file at path whole when it holds at most limit bytes
// (data nil and its size otherwise).
func readWhole(path string, limit int64) (data []byte, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if fi.Size() > limit {
		return nil, fi.Size(), nil
	}
	data = make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, 0, err
	}
	return data, fi.Size(), nil
}
