package gittest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// unprivilegedEnv marks the copy of a test that AsUnprivileged runs.
const unprivilegedEnv = "GITGUARD_TEST_UNPRIVILEGED"

// AsUnprivileged lets a test see the file system as an ordinary user does,
// for whom a file or folder without read permission is unreadable (root
// reads everything). Run as an ordinary user, it returns true and the test
// goes on. Run as root, it runs the test again, alone, from a copy of the
// test binary, as the user nobody, reports that run's outcome as the
// test's own (its output is logged) and returns false: the caller returns
// at once. Where privileges cannot be dropped as root the test is skipped
// with the reason; it never passes without having run.
func AsUnprivileged(t *testing.T) bool {
	t.Helper()
	if os.Getenv(unprivilegedEnv) == "1" || !isRoot() {
		return true
	}
	cred, err := nobody()
	if err != nil {
		t.Skipf("running as root and cannot drop privileges to test unreadable files: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Skipf("running as root and cannot find the test binary to run it as nobody: %v", err)
	}
	// The child's temporary folder, short: socket names are bounded.
	tmp, err := os.MkdirTemp("", "gg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	bin := filepath.Join(tmp, filepath.Base(self))
	if err := copyExecutable(self, bin); err != nil {
		t.Fatal(err)
	}
	// MkdirTemp makes 0700 folders.
	if err := os.Chmod(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.v", "-test.count=1")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), unprivilegedEnv+"=1", "TMPDIR="+tmp, "HOME="+tmp, "GOCOVERDIR=")
	cmd.SysProcAttr = cred
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	t.Logf("run as nobody:\n%s", out.String())
	switch {
	case err != nil:
		t.Fatalf("the test failed as nobody: %v", err)
	case strings.Contains(out.String(), "--- SKIP: "+t.Name()):
		t.Skip("the test skipped as nobody (see its output)")
	case !strings.Contains(out.String(), "--- PASS: "+t.Name()):
		t.Fatalf("the test did not run as nobody")
	}
	return false
}

func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, 0o755)
}
