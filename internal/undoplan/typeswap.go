package undoplan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// typeSwaps settles the plans of the paths whose type an undo changes back
// (a file or a symlink the agent turned into a folder, a folder it turned
// into a file or a symlink), which only the whole plan can decide:
//
//   - a folder where the agent left a file absent (ReplacesDir) is replaced
//     only if everything in it is a file the same plan deletes (a folder
//     holding nothing is fine); a file of anyone else's, ignored or not,
//     leaves the folder and the path as they are, reported;
//   - a path beneath a symlinked folder (beneath: path → link) is written
//     only if the same plan deletes the link: then it is written after the
//     link is gone, into a real folder (see Order): nothing is ever
//     written through a link.
//
// A path beneath a symlink the plan leaves in place is refused as the work
// tree's finding (workspace.ErrSymlinkParent), as every command refuses to
// look beneath a link.
func (p *Planner) typeSwaps(items []record.Plan, beneath map[string]string) error {
	byPath := make(map[string]*record.Plan, len(items))
	for i := range items {
		byPath[items[i].Path] = &items[i]
	}
	deleted := func(q string) bool {
		it := byPath[q]
		return it != nil && it.Writes() && !it.Target.Exists()
	}
	paths := make([]string, 0, len(beneath))
	for path := range beneath {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		if it := byPath[path]; it.Writes() && it.Target.Exists() && !deleted(beneath[path]) {
			if err := p.WS.CheckParents(path); err != nil {
				return err
			}
			return fmt.Errorf("%s: %w (%s)", path, workspace.ErrSymlinkParent, beneath[path])
		}
	}
	for i := range items {
		it := &items[i]
		if !it.ReplacesDir || !it.Writes() {
			continue
		}
		if foreign, err := p.foreignIn(it.Path, deleted); err != nil {
			leave(it, fmt.Sprintf("a folder is there now (%v); left as it is", err))
		} else if foreign != "" {
			leave(it, fmt.Sprintf("a folder is there now, holding %s, which this undo does not remove; left as it is", record.Quoted(foreign)))
		}
	}
	return nil
}

// leave turns a plan into a conflict left as it is, for reason.
func leave(it *record.Plan, reason string) {
	it.State, it.Action, it.Reason = record.Conflicted, record.ActionConflict, reason
	it.Target, it.Content, it.ReplacesDir = it.Current, nil, false
}

// errForeign stops foreignIn's walk at the first entry the plan does not
// delete.
var errForeign = errors.New("foreign entry")

// foreignIn returns the first entry (slash path from the top) in the folder
// at dir that is not a folder and not a file the plan deletes; "" when
// there is none. It never follows a symlink: a link is an entry like a file.
func (p *Planner) foreignIn(dir string, deleted func(string) bool) (string, error) {
	var foreign string
	top := p.WS.Abs(dir)
	err := filepath.WalkDir(top, func(full string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(top, full)
		if err != nil {
			return err
		}
		q := dir + "/" + filepath.ToSlash(rel)
		if !deleted(q) {
			foreign = q
			return errForeign
		}
		return nil
	})
	if errors.Is(err, errForeign) {
		return foreign, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	return "", err
}

// Order returns the order in which undo carries out plans (indexes into
// plans): first the deletes, deepest path first, so that what the agent
// made of a path (the files in a folder it created, a symlink it put in a
// folder's place) is gone before the path's old type comes back; then
// every other plan, parents before what is beneath them. Writing a file in
// a folder's place or beneath a removed link is then never blocked, and
// nothing is written through a link.
func Order(plans []record.Plan) []int {
	var dels, rest []int
	for i := range plans {
		if plans[i].Writes() && !plans[i].Target.Exists() {
			dels = append(dels, i)
		} else {
			rest = append(rest, i)
		}
	}
	sort.SliceStable(dels, func(a, b int) bool { return plans[dels[a]].Path > plans[dels[b]].Path })
	sort.SliceStable(rest, func(a, b int) bool { return plans[rest[a]].Path < plans[rest[b]].Path })
	return append(dels, rest...)
}
