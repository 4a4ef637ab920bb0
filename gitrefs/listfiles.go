package gitrefs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gitguard/gitguard/record"
)

// listFiles lists the refs under prefix (a folder: "refs/.../") as git's
// files backend stores them, saving a git for-each-ref process (a few
// milliseconds) in every command that looks at all runs, as a call's
// finish does to compare its changes with other runs' calls: the loose
// ref files under the folder, over the packed-refs lines they shadow. ok
// is false, and git decides, for a reftable repository, a symbolic,
// unreadable or oddly named ref, or anything else unexpected.
func (s *Store) listFiles(prefix string) (refs []Ref, ok bool) {
	if !strings.HasPrefix(prefix, "refs/") || !strings.HasSuffix(prefix, "/") {
		return nil, false
	}
	common := s.repo.CommonDir
	if _, err := os.Stat(filepath.Join(common, "reftable")); err == nil {
		return nil, false
	}
	found := map[string]record.Hash{}
	packed, err := os.ReadFile(filepath.Join(common, "packed-refs"))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, false
	default:
		for _, line := range strings.Split(string(packed), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if line == "" || line[0] == '#' || line[0] == '^' {
				continue // the header, a peeled tag
			}
			id, name, cut := strings.Cut(line, " ")
			if !cut || !strings.HasPrefix(name, prefix) {
				continue
			}
			h, err := record.ParseHash(id)
			if err != nil || !plainRefName(name) {
				return nil, false
			}
			found[name] = h
		}
	}
	root := filepath.Join(common, filepath.FromSlash(prefix))
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return vanished(path, root, err)
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return errNotPlain // a symlink: git decides
		}
		rel, err := filepath.Rel(common, path)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if strings.HasSuffix(name, ".lock") {
			return nil // a writer's lock, not a ref
		}
		if !plainRefName(name) {
			return errNotPlain
		}
		if beforeRead != nil {
			beforeRead(path)
		}
		h, err := readLoose(path) // errNotPlain: symbolic ("ref: ...") or broken
		if err != nil {
			return vanished(path, root, err)
		}
		found[name] = h
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	for name, h := range found {
		refs = append(refs, Ref{Name: name, Hash: h})
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Name < refs[j].Name })
	return refs, true
}

var errNotPlain = errors.New("not a plain loose ref")

// vanished is the walk's error for path: a ref or folder that went while
// the walk listed it (git pack-refs packs and deletes loose refs, a prune
// deletes runs) leaves the listing to git, which reads refs consistently,
// rather than ending the walk as if the rest were not there. Only the
// prefix's own folder missing means no loose refs.
func vanished(path, root string, err error) error {
	if errors.Is(err, fs.ErrNotExist) && path != root {
		return errNotPlain
	}
	return err
}

// beforeRead, set by tests, runs before listFiles reads a loose ref file.
var beforeRead func(path string)

// maxRefFile bounds what listFiles reads of a loose ref: an object id and
// a newline, or a symbolic ref's target, are far shorter. Anything longer
// (a file an agent put in the way, a gigabyte say) is git's to judge.
const maxRefFile = 4096

// readSmall reads the loose ref at path, errNotPlain when it is longer
// than maxRefFile: the one reader of loose refs (readLoose).
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRefFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxRefFile {
		return nil, errNotPlain
	}
	return data, nil
}

// plainRefName reports whether name is a ref name git takes as it is:
// no component starts with a dot or ends with .lock, and no character
// git's check-ref-format refuses. Anything else is left to git.
func plainRefName(name string) bool {
	if strings.Contains(name, "..") || strings.Contains(name, "@{") || strings.Contains(name, "//") {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part[0] == '.' || strings.HasSuffix(part, ".lock") {
			return false
		}
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f || strings.ContainsRune(" ~^:?*[\\", c) {
			return false
		}
	}
	return true
}
