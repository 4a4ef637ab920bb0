package safewrite

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// ErrUnsafeLink is returned (wrapped with record.ErrCorrupt) when undo or
// redo would write a path beneath a symlink: one it creates, or one on
// disk that it leaves in place. Writing there would write through the
// link, outside the work tree or into .git. A symlink's target is data,
// as git checks it out: a link may point anywhere (outside the work tree,
// to an absolute path, to itself). Nothing has been written when it is
// returned from CheckPlanned.
var ErrUnsafeLink = errors.New("refused to write through a symlink")

// Planned is one path a plan writes: the state it makes the path hold,
// and its content (a symlink's target).
type Planned struct {
	Path    string
	Target  record.State
	Content []byte
}

// CheckPlanned refuses, before undo writes anything, a plan that would
// write a path beneath a symlink: one the plan creates (a -> .git with
// a/hooks/pre-commit), or one on disk that the plan does not delete
// first. A folder on the way that the plan deletes (a symlink the agent
// put in a folder's place) is gone when the path is written: undo carries
// out deletes first (undoplan.Order), so the path lands in a real folder.
// It also refuses a symlink whose target no system can hold (empty, or
// with a NUL). Such plans come only from records no work tree could have
// produced (fetched or planted). With core.symlinks=false a link is
// written as a plain file holding its target, which leads nowhere.
func (w *Writer) CheckPlanned(items []Planned) error {
	targets := make(map[string]record.State, len(items))
	for _, it := range items {
		targets[it.Path] = it.Target
	}
	if p, link := patchstore.LinkedPath(targets); p != "" {
		return fmt.Errorf("%w: %w: undo would write %s beneath %s, which it makes a symlink; nothing was written",
			record.ErrCorrupt, ErrUnsafeLink, record.Quoted(p), record.Quoted(link))
	}
	for _, it := range items {
		if !it.Target.Exists() {
			continue
		}
		if it.Target.Mode == record.ModeSymlink && w.WS.Symlinks() {
			if t := string(it.Content); t == "" || strings.ContainsRune(t, 0) {
				return fmt.Errorf("%w: %s is a symlink with no valid target; nothing was written", record.ErrCorrupt, record.Quoted(it.Path))
			}
		}
		if dir, why := w.beneath(it.Path, targets); why != "" {
			return fmt.Errorf("%w: %w: undo would write %s beneath %s, %s; nothing was written",
				record.ErrCorrupt, ErrUnsafeLink, record.Quoted(it.Path), record.Quoted(dir), why)
		}
	}
	return nil
}

// beneath walks the folders above p as they are when p is written (the
// plan's deletes done first) and says which one p would be written
// through, and why ("" when none).
func (w *Writer) beneath(p string, targets map[string]record.State) (string, string) {
	for i := strings.IndexByte(p, '/'); i >= 0; {
		dir := p[:i]
		if st, ok := targets[dir]; ok {
			if st.Exists() {
				return dir, "which it makes a file"
			}
			return "", "" // deleted first: what follows is made afresh
		}
		fi, err := os.Lstat(w.abs(dir))
		if err != nil || fi.Mode()&os.ModeSymlink != 0 {
			if err == nil {
				return dir, "a symlink it leaves in place"
			}
			return "", "" // missing: made afresh
		}
		if !fi.IsDir() {
			return "", "" // writing fails there, through nothing
		}
		j := strings.IndexByte(p[i+1:], '/')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return "", ""
}

// ErrFolderNotEmpty is returned by RemoveDir when the folder holds
// something other than folders: a file or a symlink of someone else's.
var ErrFolderNotEmpty = errors.New("the folder holds files undo does not remove")

// RemoveDir removes the folder at path, which must hold nothing but
// (empty) folders: undo has deleted the files the agent made in it, and
// puts the path's old type back in its place. It never follows a symlink
// and never removes a file: a folder holding one is left as it is, with
// ErrFolderNotEmpty. A path that is absent already is fine.
func (w *Writer) RemoveDir(path string) error {
	if err := record.ValidatePath(path); err != nil {
		return err
	}
	if err := w.WS.CheckParents(path); err != nil {
		return err
	}
	full := w.abs(path)
	fi, err := os.Lstat(full)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove the folder %s: %w", path, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("remove the folder %s: %w (it is no folder now)", path, ErrFolderNotEmpty)
	}
	if err := removeEmpty(full, path); err != nil {
		return fmt.Errorf("remove the folder %s: %w", path, err)
	}
	return nil
}

// removeEmpty removes the folder full and the folders in it, deepest
// first, provided none holds anything else.
func removeEmpty(full, path string) error {
	entries, err := os.ReadDir(full)
	if err != nil {
		return err
	}
	for _, e := range entries {
		// The entry's type is lstat's: a symlink to a folder is no folder.
		if !e.IsDir() {
			return fmt.Errorf("%w: %s", ErrFolderNotEmpty, record.Quoted(path+"/"+e.Name()))
		}
		if err := removeEmpty(full+string(os.PathSeparator)+e.Name(), path+"/"+e.Name()); err != nil {
			return err
		}
	}
	fi, err := os.Lstat(full)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s", ErrFolderNotEmpty, record.Quoted(path))
	}
	// Removes only an empty folder.
	return os.Remove(full)
}
