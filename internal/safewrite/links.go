package safewrite

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// ErrUnsafeLink is returned (wrapped with record.ErrCorrupt) when undo or
// redo would create a symlink that points outside the work tree or into a
// .git folder, or write a file through a symlink it creates. Nothing has
// been written when it is returned from planning.
var ErrUnsafeLink = errors.New("refused to create an unsafe symlink")

// maxLinkHops bounds how many symlinks a target is followed through, as
// the kernel's ELOOP does.
const maxLinkHops = 40

// Planned is one path a plan writes: the state it makes the path hold,
// and its content (a symlink's target).
type Planned struct {
	Path    string
	Target  record.State
	Content []byte
}

// CheckPlanned refuses, before undo writes anything, a plan that
// would create a symlink pointing outside the work tree or into .git
// (absolute targets, ".." climbing out, a target reaching .git, directly
// or through other symlinks, on disk or created by the same plan), or
// that would write a path beneath a symlink it creates. Such a plan comes
// only from records no work tree could have produced (fetched or planted),
// and git itself never writes through a symlink either. With
// core.symlinks=false a link is written as a plain file holding its
// target, which leads nowhere, so only the paths are checked.
func (w *Writer) CheckPlanned(items []Planned) error {
	targets := map[string]record.State{}
	planned := map[string]*string{} // path → link target; nil: written, not a link
	for i := range items {
		it := &items[i]
		targets[it.Path] = it.Target
		if it.Target.Mode == record.ModeSymlink && w.WS.Symlinks() {
			t := string(it.Content)
			planned[it.Path] = &t
		} else {
			planned[it.Path] = nil
		}
	}
	if p, link := patchstore.LinkedPath(targets); p != "" {
		return fmt.Errorf("%w: %w: undo would write %s beneath %s, which it makes a symlink; nothing was written",
			record.ErrCorrupt, ErrUnsafeLink, record.Quoted(p), record.Quoted(link))
	}
	for p, t := range planned {
		if t == nil {
			continue
		}
		if why := w.linkEscapes(p, *t, planned); why != "" {
			return fmt.Errorf("%w: %w: %s -> %s %s; nothing was written (recreate the link by hand if you trust it)",
				record.ErrCorrupt, ErrUnsafeLink, record.Quoted(p), record.Quoted(*t), why)
		}
	}
	return nil
}

// checkLinkTarget is CheckPlanned for one symlink about to be
// written, against the work tree as it is.
func (w *Writer) checkLinkTarget(p, target string) error {
	if why := w.linkEscapes(p, target, nil); why != "" {
		return fmt.Errorf("%w: %w: %s -> %s %s", record.ErrCorrupt, ErrUnsafeLink, record.Quoted(p), record.Quoted(target), why)
	}
	return nil
}

// linkEscapes says where a symlink at link with this target would lead
// that undo must not create ("" when it stays inside the work tree and
// out of .git). The target is resolved as the system would, component by
// component from the link's folder, following symlinks that planned
// creates (or, for paths planned makes no link, that are on disk now).
// Backslashes count as separators, as Windows reads them.
func (w *Writer) linkEscapes(link, target string, planned map[string]*string) string {
	if target == "" {
		return "has an empty target"
	}
	if strings.ContainsRune(target, 0) {
		return "has a NUL in its target"
	}
	pending := splitLink(path.Dir(link))
	more, abs := splitTarget(target)
	if abs {
		return "points to an absolute path, outside the work tree"
	}
	pending = append(pending, more...)
	var resolved []string
	for hops := 0; len(pending) > 0; {
		c := pending[0]
		pending = pending[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(resolved) == 0 {
				return "points outside the work tree"
			}
			resolved = resolved[:len(resolved)-1]
			continue
		}
		if err := record.ValidateTreeName(c); err != nil {
			return "points into .git"
		}
		resolved = append(resolved, c)
		cur := strings.Join(resolved, "/")
		next, isLink := w.linkAt(cur, planned)
		if !isLink {
			continue
		}
		if hops++; hops > maxLinkHops {
			return "goes through too many symlinks"
		}
		parts, abs := splitTarget(next)
		if abs {
			return fmt.Sprintf("leads through the symlink %s to an absolute path, outside the work tree", record.Quoted(cur))
		}
		resolved = resolved[:len(resolved)-1]
		pending = append(parts, pending...)
	}
	return ""
}

// linkAt returns the target of the symlink at p, as planned or else on
// disk, and whether there is one.
func (w *Writer) linkAt(p string, planned map[string]*string) (string, bool) {
	if t, ok := planned[p]; ok {
		if t == nil {
			return "", false
		}
		return *t, true
	}
	fi, err := os.Lstat(w.abs(p))
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return "", false
	}
	t, err := os.Readlink(w.abs(p))
	if err != nil {
		return "", false
	}
	return t, true
}

func splitLink(dir string) []string {
	if dir == "." || dir == "" {
		return nil
	}
	return strings.Split(dir, "/")
}

// splitTarget splits a link target into components, and says whether it is
// absolute on any system: /x, \x, C:x, \\server\share.
func splitTarget(t string) ([]string, bool) {
	t = strings.ReplaceAll(t, `\`, "/")
	if strings.HasPrefix(t, "/") || (len(t) >= 2 && t[1] == ':') {
		return nil, true
	}
	return strings.Split(t, "/"), false
}
