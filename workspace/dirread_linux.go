//go:build linux && !gitguard_portable

package workspace

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// walkerName names the way folders are read, for benchmarks and logs.
const walkerName = "linux (getdents, fstatat)"

// folder is an open folder of the work tree. Names in it are looked up
// relative to its descriptor (fstatat), so the kernel resolves one name
// instead of the whole path, and listed with getdents.
type folder struct{ fd int }

// openFolder opens the folder full. Unless follow is set, a folder that
// was replaced by a symlink is not followed (errFolderGone), nor is a
// folder gone or now a file.
func openFolder(full string, follow bool) (*folder, error) {
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(full, flags, 0)
	for errors.Is(err, unix.EINTR) {
		fd, err = unix.Open(full, flags, 0)
	}
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
			return nil, errFolderGone
		}
		return nil, err
	}
	return &folder{fd: fd}, nil
}

func (f *folder) close() { unix.Close(f.fd) }

// lstat is lstat of the name in the folder.
func (f *folder) lstat(name string, st *fileStat) error {
	var raw unix.Stat_t
	for {
		err := unix.Fstatat(f.fd, name, &raw, unix.AT_SYMLINK_NOFOLLOW)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	fromUnixStat(&raw, st)
	return nil
}

// direntBufs holds getdents buffers for reuse across folders.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// list appends the names in the folder to out, unsorted, without "." and
// "..". The names of one getdents batch share a single string allocation.
func (f *folder) list(out []dirent) ([]dirent, error) {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := unix.Getdents(f.fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			return out, nil
		}
		batch := string(buf[:n])
		for off := 0; off+19 <= len(batch); {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(batch[off+16]) | int(batch[off+17])<<8
			if reclen < 19 || off+reclen > len(batch) {
				return out, fmt.Errorf("getdents: bad record length %d", reclen)
			}
			typ := batch[off+18]
			name := batch[off+19 : off+reclen]
			if i := strings.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			off += reclen
			if name == "." || name == ".." {
				continue
			}
			out = append(out, dirent{name: name, kind: direntKind(typ)})
		}
	}
}

func direntKind(typ uint8) fileKind {
	switch typ {
	case unix.DT_REG:
		return kindFile
	case unix.DT_DIR:
		return kindDir
	case unix.DT_LNK:
		return kindSymlink
	case unix.DT_UNKNOWN:
		return kindUnknown
	}
	return kindOther
}
