package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// ErrNotRegular is returned by ReadFile for a name that is not a regular
// file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned by ReadFile for a file over its limit.
var ErrTooLarge = errors.New("file too large")

// ReadFile reads a small state file such as WriteFile writes, of at most
// limit bytes. Only a regular file is read: whatever else is planted in
// its place is refused with ErrNotRegular (a fifo would block the reader
// until someone writes to it, a symlink to a device would feed it
// forever), and a file over limit with ErrTooLarge. A missing file is
// fs.ErrNotExist, as with os.ReadFile.
func ReadFile(path string, limit int64) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	// Non-blocking, not following a symlink, and checked again once open:
	// the name may have been swapped since.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|noFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err = f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	// Read in one buffer of the file's size, as os.ReadFile does; a file
	// that grows meanwhile is read on, up to the limit.
	data := make([]byte, 0, min(fi.Size(), limit)+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if int64(len(data)) > limit {
			return nil, fmt.Errorf("%s: %w (over %d bytes)", path, ErrTooLarge, limit)
		}
		if errors.Is(err, io.EOF) {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// OpenAppend opens path for appending, creating it with mode if missing:
// a log or a list that lines are added to. As with ReadFile, only a
// regular file is opened: a symlink planted in its place would have the
// lines written into whatever it names, a fifo block the writer.
func OpenAppend(path string, mode os.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK|noFollow, mode)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	return f, nil
}
