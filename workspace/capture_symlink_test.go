package workspace

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
)

// TestCaptureAbsentBehindSymlinkParent: Capture of link/x, where link is
// a symlink to a folder outside the work tree that has no x, must report
// ErrSymlinkParent as it does when x exists there, never "absent": callers
// that then write the path (undo) would write outside the work tree.
func TestCaptureAbsentBehindSymlinkParent(t *testing.T) {
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("init")
	outside := t.TempDir()
	r.Symlink(outside, "link")
	w := openWS(t, r.Dir)
	_, _, err := w.Capture("link/x", false)
	if !errors.Is(err, ErrSymlinkParent) {
		t.Errorf("Capture(link/x) with link -> %s and no x there: err = %v, want ErrSymlinkParent", outside, err)
	}
	gittest.WriteFile(t, filepath.Join(outside, "x"), "x\n")
	if _, _, err := w.Capture("link/x", false); !errors.Is(err, ErrSymlinkParent) {
		t.Errorf("with x present: err = %v, want ErrSymlinkParent", err)
	}
}

// A symlinked folder higher up is found even when the folders below it do
// not exist behind the link (link/missing/x).
func TestCheckParentsFromTheTop(t *testing.T) {
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("init")
	r.Symlink(t.TempDir(), "link")
	w := openWS(t, r.Dir)
	if err := w.CheckParents("link/missing/x"); !errors.Is(err, ErrSymlinkParent) {
		t.Errorf("CheckParents(link/missing/x) = %v, want ErrSymlinkParent", err)
	}
	if err := w.CheckParents("real/missing/x"); err != nil {
		t.Errorf("CheckParents(real/missing/x) = %v, want nil", err)
	}
}
