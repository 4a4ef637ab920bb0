// Package atomicfile replaces small files so that a crash leaves either
// the old or the new content, never a mix: gitguard's state files and the
// agent settings it merges into.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// WriteFile replaces path with data and mode: a temporary file in the same
// folder is written, synced and renamed over path, then the folder is
// synced so that the rename survives a power loss. Missing folders are made.
func WriteFile(path string, data []byte, mode os.FileMode) error {
	return write(path, data, mode, true)
}

// WriteFileUnsynced is WriteFile without the flushes, for state whose
// loss its reader survives: a killed process leaves the old or the new
// content as with WriteFile, but a power loss may leave the old content,
// or on some file systems an empty file, where WriteFile leaves the new.
// It saves two disk flushes, about as long as the rest of the write.
func WriteFileUnsynced(path string, data []byte, mode os.FileMode) error {
	return write(path, data, mode, false)
}

func write(path string, data []byte, mode os.FileMode, sync bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil && sync {
		err = tmp.Sync()
	}
	if err = errors.Join(err, tmp.Close()); err != nil {
		return err
	}
	if err := Rename(tmp.Name(), path); err != nil {
		return err
	}
	if !sync {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil // the file is in place; only its durability is unconfirmed
	}
	defer d.Close()
	return d.Sync()
}
