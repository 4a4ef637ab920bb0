package safewrite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gitguard/gitguard/internal/atomicfile"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/internal/ospath"
	"github.com/gitguard/gitguard/record"
)

// Write makes path hold st: content with st's mode, a symlink to
// content, or nothing. content is in recorded form: for a path git
// converts, it is turned into work-tree bytes by git first. Files are written to a temporary file in the same
// folder and renamed into place, so a crash leaves the old or the new
// content, never a mix. It refuses paths whose parent folders include a
// symlink, and never removes a folder (RemoveDir does, when empty). A
// symlink is written with whatever target it had, as git checks it out.
func (w *Writer) Write(ctx context.Context, path string, st record.State, content []byte) error {
	if err := record.ValidatePath(path); err != nil {
		return err
	}
	// A name this platform cannot hold (on Windows: C:x, a.txt:stream,
	// CON, "name."), refused as git for Windows refuses to check it out.
	if err := ospath.Host().CheckName(path); err != nil {
		return fmt.Errorf("%w: %w", record.ErrBadPath, err)
	}
	// For link/x with link -> /outside, MkdirAll and the rename below would
	// write outside the work tree.
	if err := w.WS.CheckParents(path); err != nil {
		return err
	}
	full := w.abs(path)
	if !st.Exists() {
		fi, err := os.Lstat(full)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("delete %s: %w", path, err)
		}
		if fi.IsDir() {
			return fmt.Errorf("delete %s: a folder is there now; left alone", path)
		}
		if err := os.Remove(full); err != nil {
			return fmt.Errorf("delete %s: %w", path, err)
		}
		return nil
	}
	dir := filepath.Dir(full)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Keep the permission bits of a file being replaced (git tracks only
	// the executable bit); a new file gets the umask's, as git gives it.
	var keep os.FileMode
	if fi, err := os.Lstat(full); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("write %s: a folder is there now; left alone", path)
		}
		if fi.Mode().IsRegular() {
			keep = fi.Mode().Perm()
		}
	}
	tmp := filepath.Join(dir, fmt.Sprintf(".%s.gitguard-%d.tmp", filepath.Base(full), os.Getpid()))
	defer os.Remove(tmp)
	mode := st.Mode
	linkAsFile := mode == record.ModeSymlink && !w.WS.Symlinks()
	if linkAsFile {
		// core.symlinks=false: a plain file holding the target, unconverted,
		// as git checks a link out there; snapshots read it back as the link.
		mode, keep = record.ModeFile, 0
	}
	switch mode {
	case record.ModeSymlink:
		os.Remove(tmp)
		if err := os.Symlink(string(content), tmp); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	case record.ModeFile, record.ModeExec:
		if conv, err := w.WS.Converts(ctx, path); err != nil {
			return err
		} else if conv && !linkAsFile {
			// git smudges from the object database: make sure the blob is there.
			if _, err := w.DB.Write(odb.TypeBlob, content); err != nil {
				return fmt.Errorf("write %s: %w", path, err)
			}
			if content, err = w.WS.Smudge(ctx, path, st.Hash); err != nil { // as the run converts
				return err
			}
		}
		perm := os.FileMode(0o644)
		if st.Mode == record.ModeExec {
			perm = 0o755
		}
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		_, err = f.Write(content)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil && keep != 0 {
			if st.Mode == record.ModeExec {
				keep |= (keep & 0o444) >> 2
			} else {
				keep &^= 0o111
			}
			err = os.Chmod(tmp, keep)
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	default:
		return fmt.Errorf("write %s: mode %s cannot be restored", path, st.Mode)
	}
	if err := atomicfile.Rename(tmp, full); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
