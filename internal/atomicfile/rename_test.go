package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRenameReplacesOpenFile: the target is open for reading while it is
// replaced, as an editor or a git process may hold it. Readers of the old
// file keep its whole content and the name holds the whole new content.
func TestRenameReplacesOpenFile(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "file.txt")
	if err := os.WriteFile(dst, []byte("old content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	held, err := os.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := WriteFile(dst, []byte("new content\n"), 0o644); err != nil {
		// Windows: os.Open shares deletion, so even there this succeeds.
		t.Fatalf("replace a file held open: %v", err)
	}
	got, err := os.ReadFile(dst)
	if err != nil || string(got) != "new content\n" {
		t.Fatalf("after the replacement the file holds %q (%v), want the new content", got, err)
	}
	old := make([]byte, 64)
	n, _ := held.Read(old)
	if string(old[:n]) != "old content\n" {
		t.Errorf("the reader of the old file saw %q, want the whole old content", old[:n])
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".file.txt.tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestRenameMissingSource fails at once with the error os.Rename gives.
func TestRenameMissingSource(t *testing.T) {
	dir := t.TempDir()
	err := Rename(filepath.Join(dir, "nope"), filepath.Join(dir, "dst"))
	if !os.IsNotExist(err) {
		t.Fatalf("Rename of a missing file = %v, want a not-exist error", err)
	}
}
