package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Both writes make missing folders, replace the content whole, set the
// mode and leave no temporary file behind.
func TestWriteFileAndUnsynced(t *testing.T) {
	for name, write := range map[string]func(string, []byte, os.FileMode) error{
		"synced": WriteFile, "unsynced": WriteFileUnsynced,
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "a", "b")
			path := filepath.Join(dir, "state.json")
			for _, content := range []string{"first, a longer content\n", "second\n"} {
				if err := write(path, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(path)
				if err != nil || string(got) != content {
					t.Fatalf("file holds %q (%v), want %q", got, err, content)
				}
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}
			entries, err := os.ReadDir(dir)
			if err != nil || len(entries) != 1 {
				t.Errorf("folder holds %v (%v), want the file alone", entries, err)
			}
		})
	}
}
