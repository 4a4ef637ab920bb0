//go:build !linux || gitguard_portable

package odb

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
)

// syncFS makes the object files written since the last sync durable where
// there is no syncfs(2): an fsync of each and of the folders that hold
// them, all at once (see Sync).
func syncFS(dir string, files []string) error {
	dirs := map[string]bool{dir: true}
	for _, f := range files {
		dirs[filepath.Dir(f)] = true
	}
	list := slices.Clone(files)
	for d := range dirs {
		list = append(list, d)
	}
	return fsyncAll(list)
}

// fsyncPath fsyncs a file or a folder by name. Windows cannot flush a
// folder (NTFS journals its entries), as git for Windows knows too.
func fsyncPath(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if runtime.GOOS == "windows" {
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return nil
		}
	}
	return f.Sync()
}
