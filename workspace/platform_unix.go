//go:build !windows

package workspace

// Defaults of core.fileMode and core.symlinks when the repository does not
// set them: git's own.
const (
	defaultFileMode = true
	defaultSymlinks = true
)
