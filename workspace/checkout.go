package workspace

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/gitguard/gitguard/record"
)

// Symlinks reports whether a recorded symlink is written to the work tree
// as a symlink (core.symlinks, true unless set, but false by default on
// Windows as git for Windows sets it). When false it is written as a plain
// file holding the link's target, which snapshots read back as the link,
// as git does.
func (w *Workspace) Symlinks() bool { return w.config.Bool("core.symlinks", defaultSymlinks) }

// indexModes answers "what mode does the index give this path?" for
// Capture on file systems without an executable bit or symlinks, where
// git takes the mode from the index (ce_mode_from_stat). The index is
// read again only when its file changed.
type indexModes struct {
	mu    sync.Mutex
	stamp fileStamp
	modes map[string]record.Mode
}

// indexMode returns the index's mode for path (stage 0), or ModeNone.
func (w *Workspace) indexMode(path string) record.Mode {
	m := &w.idxModes
	m.mu.Lock()
	defer m.mu.Unlock()
	file := filepath.Join(w.repo.GitDir, "index")
	if st := stamp(file); m.modes == nil || st != m.stamp {
		m.modes = map[string]record.Mode{}
		m.stamp = st
		if idx, err := w.ReadIndex(context.Background()); err == nil {
			for i := range idx.Entries {
				if e := &idx.Entries[i]; e.Stage == 0 {
					m.modes[e.Path] = e.Mode
				}
			}
		}
	}
	return m.modes[path]
}

// captureMode is the mode Capture records for a regular file whose own
// mode (from its executable bit) is mode: with core.fileMode=false the
// index's file mode stands, with core.symlinks=false a file the index
// has as a symlink is that symlink, as in git and in snapshots (modeOf).
func (w *Workspace) captureMode(path string, mode record.Mode) record.Mode {
	filemode := w.config.Bool("core.filemode", defaultFileMode)
	symlinks := w.Symlinks()
	if filemode && symlinks {
		return mode
	}
	im := w.indexMode(path)
	switch {
	case !symlinks && im == record.ModeSymlink:
		return record.ModeSymlink
	case !filemode && im.IsFile():
		return im
	case !filemode:
		return record.ModeFile
	}
	return mode
}
