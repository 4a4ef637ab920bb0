package atomicfile

import (
	"os"
	"time"
)

// renameTries bounds Rename's attempts where a rename can fail for a while
// (Windows); the waits between them add up to about 1.5 s.
const renameTries = 8

// Rename renames oldpath to newpath, replacing newpath, as os.Rename does.
// On Windows a file another process holds open (an editor, a virus
// scanner, the indexer, a git reading the same ref) cannot be replaced
// until it is closed, so Rename tries again a few times with growing waits
// before it gives up, as git for Windows does. The file at newpath is
// always either the old one or the new one, never a mix.
func Rename(oldpath, newpath string) error {
	err := os.Rename(oldpath, newpath)
	for try := 1; err != nil && try < renameTries && retryable(err); try++ {
		time.Sleep(time.Duration(try*try) * 5 * time.Millisecond)
		err = os.Rename(oldpath, newpath)
	}
	return err
}
