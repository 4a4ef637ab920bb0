//go:build !unix

package atomicfile

// noFollow is not a flag here: the Lstat before each open refuses a
// symlink, and the check of the opened file refuses what it led to.
const noFollow = 0
