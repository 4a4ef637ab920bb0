package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestReadFile: a regular file is read whole, a missing one is
// fs.ErrNotExist, one over the limit ErrTooLarge, and a symlink, a folder
// or a fifo in its place ErrNotRegular, at once.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state")
	if err := WriteFile(path, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(path, 6); err != nil || string(data) != "hello\n" {
		t.Errorf("ReadFile = %q, %v; want the file", data, err)
	}
	if _, err := ReadFile(path, 5); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v, want ErrTooLarge", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v, want fs.ErrNotExist", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(filepath.Join(dir, "folder"), 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a folder: %v, want ErrNotRegular", err)
	}
	if runtime.GOOS == "windows" {
		return // no fifos; symlinks need a privilege
	}
	if err := os.Symlink(path, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(filepath.Join(dir, "link"), 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a symlink: %v, want ErrNotRegular", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadFile(fifo, 10)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("a fifo: %v, want ErrNotRegular", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ReadFile blocked on a fifo")
	}
}

// TestOpenAppend: lines go to a regular file, created if missing; a
// symlink in its place is refused and what it names is left as it was,
// and a fifo is refused at once.
func TestOpenAppend(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "list")
	for _, line := range []string{"one\n", "two\n"} {
		f, err := OpenAppend(path, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "one\ntwo\n" {
		t.Errorf("list = %q, %v; want two lines", data, err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenAppend(link, 0o644); !errors.Is(err, ErrNotRegular) {
		if f != nil {
			f.Close()
		}
		t.Errorf("a symlink: %v, want ErrNotRegular", err)
	}
	if data, _ := os.ReadFile(victim); string(data) != "mine\n" {
		t.Errorf("the symlink's target became %q", data)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := OpenAppend(fifo, 0o644)
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("a fifo was opened for appending")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("OpenAppend blocked on a fifo")
	}
}

// TestReadFileSizes: files around the limit and larger than one read.
func TestReadFileSizes(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 511, 512, 513, 100_000, 1 << 20} {
		path := filepath.Join(dir, "f")
		want := make([]byte, size)
		for i := range want {
			want[i] = byte(i * 7)
		}
		if err := os.WriteFile(path, want, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path, int64(size))
		if err != nil || string(got) != string(want) {
			t.Errorf("size %d: read %d bytes, %v; want the file", size, len(got), err)
		}
		if _, err := ReadFile(path, int64(size)-1); size > 0 && !errors.Is(err, ErrTooLarge) {
			t.Errorf("size %d, limit one less: %v, want ErrTooLarge", size, err)
		}
	}
}
