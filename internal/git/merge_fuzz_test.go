package git

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// FuzzMergeFile checks MergeFile, the plumbing undo's three-way merge runs
// on, against git merge-file -p run directly on the same three files: same
// output, same conflict count, and an error exactly when git fails (exit
// 128 and up, binary input among others).
func FuzzMergeFile(f *testing.F) {
	if _, err := exec.LookPath("git"); err != nil {
		f.Skip("git not found")
	}
	f.Add([]byte("1\nagent\n3\n"), []byte("1\nagent\n3\n"), []byte("1\n2\n3\n"))
	f.Add([]byte("1\nagent\n3\nuser\n"), []byte("1\nagent\n3\n4\n"), []byte("1\n2\n3\n4\n"))
	f.Add([]byte("a\nuser\nc\n"), []byte("a\nagent\nc\n"), []byte("a\nb\nc\n"))
	f.Add([]byte("no newline"), []byte(""), []byte("x\r\ny\r\n"))
	f.Add([]byte("bin\x00ary"), []byte("b"), []byte("c"))
	labels := [3]string{"current", "agent (c1)", "before c1"}
	f.Fuzz(func(t *testing.T, ours, base, theirs []byte) {
		ctx := context.Background()
		got, n, err := MergeFile(ctx, t.TempDir(), ours, base, theirs, labels)

		dir := t.TempDir()
		for name, data := range map[string][]byte{"o": ours, "b": base, "t": theirs} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command("git", "merge-file", "-p", "-L", labels[0], "-L", labels[1], "-L", labels[2], "o", "b", "t")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LC_ALL=C") // as MergeFile runs it
		var out bytes.Buffer
		cmd.Stdout = &out
		werr := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			code = ee.ExitCode()
		} else if werr != nil {
			t.Fatal(werr)
		}
		switch {
		case code >= 128 || code < 0:
			if err == nil {
				t.Fatalf("git merge-file failed (exit %d) but MergeFile returned %d conflicts", code, n)
			}
			return
		case err != nil:
			t.Fatalf("MergeFile: %v; git merge-file exited %d", err, code)
		case n != code:
			t.Fatalf("MergeFile counted %d conflicts, git merge-file %d", n, code)
		case !bytes.Equal(got, out.Bytes()):
			t.Fatalf("MergeFile output differs from git merge-file -p:\n%q\n%q", got, out.Bytes())
		}
		if n == 0 && bytes.Equal(ours, base) && !bytes.Equal(got, theirs) {
			t.Fatalf("ours == base must give theirs: %q", got)
		}
	})
}
