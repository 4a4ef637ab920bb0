// Package callscope turns the paths a user or an agent names into the
// paths a call captures: relative to the top of the work tree, validated,
// and widened to globs when a path is a folder.
//
// Invariants: no path leaves the work tree or enters .git; the work tree
// may be reached through a symlinked folder; literal paths are escaped
// before they become globs.
package callscope

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitguard/gitguard/internal/ospath"
	"github.com/gitguard/gitguard/record"
)

// ErrOutsideWorkTree is returned for a path argument outside the work tree.
var ErrOutsideWorkTree = errors.New("path is outside the work tree")

// RepoPath turns a path argument (relative to dir, or absolute) into a
// slash-separated path relative to the top of the work tree. It returns
// ErrOutsideWorkTree for paths that leave it, and record.ErrBadPath for
// paths into .git.
func RepoPath(top, dir, arg string) (string, error) {
	abs := arg
	if !filepath.IsAbs(abs) {
		base, err := filepath.Abs(dir)
		if err != nil {
			return "", err
		}
		abs = filepath.Join(base, arg)
	}
	// The work tree may be reached through a symlinked folder (/tmp on
	// some systems): compare resolved parents.
	// ospath compares as the platform does: drive letters and names in
	// any case and either slash on Windows.
	host := ospath.Host()
	rel, ok := host.Rel(top, abs)
	if !ok {
		if rtop, e1 := filepath.EvalSymlinks(top); e1 == nil {
			if rdir, e2 := filepath.EvalSymlinks(filepath.Dir(abs)); e2 == nil {
				rel, ok = host.Rel(rtop, filepath.Join(rdir, filepath.Base(abs)))
			}
		}
	}
	if !ok || rel == "" {
		return "", fmt.Errorf("%s: %w (%s)", arg, ErrOutsideWorkTree, top)
	}
	if err := record.ValidatePath(rel); err != nil {
		return "", err
	}
	return rel, nil
}

// escapeGlob quotes doublestar metacharacters in a literal path.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Scope splits a call's declared paths into files captured one by one, or
// widens to a whole-workspace capture with globs (added to globs) when a
// path is a folder: then paths comes back nil. abs is a path's file name.
func Scope(abs func(string) string, paths, globs []string) ([]string, []string, error) {
	for _, p := range paths {
		if err := record.ValidatePath(p); err != nil {
			return nil, nil, err
		}
	}
	var dirs bool
	for _, p := range paths {
		if fi, err := os.Stat(abs(p)); err == nil && fi.IsDir() {
			dirs = true
		}
	}
	if !dirs {
		return dedupe(paths), globs, nil
	}
	for _, p := range paths {
		if fi, err := os.Stat(abs(p)); err == nil && fi.IsDir() {
			globs = append(globs, escapeGlob(p)+"/**")
		} else {
			globs = append(globs, escapeGlob(p))
		}
	}
	return nil, globs, nil
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range in {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
