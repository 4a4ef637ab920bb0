//go:build windows

package workspace

// Defaults of core.fileMode and core.symlinks when the repository does not
// set them. git for Windows writes both as false when it creates or clones
// a repository (no executable bit; symlinks checked out as plain files
// holding their target unless the user may create them); a repository
// made elsewhere and copied in is read the same way, since Windows has no
// executable bit to trust.
const (
	defaultFileMode = false
	defaultSymlinks = false
)
