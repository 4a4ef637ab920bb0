package gitguard

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
func (g *Guard) RepoPath(dir, arg string) (string, error) {
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
	top := g.repo.WorkTree
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

// scope splits declared paths into files captured one by one, or widens
// to a whole-workspace capture with globs when a path is a folder.
func (g *Guard) scope(o *CallOptions) error {
	for _, p := range o.Paths {
		if err := record.ValidatePath(p); err != nil {
			return err
		}
	}
	var dirs bool
	for _, p := range o.Paths {
		if fi, err := os.Stat(g.ws.Abs(p)); err == nil && fi.IsDir() {
			dirs = true
		}
	}
	if !dirs {
		o.Paths = dedupe(o.Paths)
		return nil
	}
	for _, p := range o.Paths {
		if fi, err := os.Stat(g.ws.Abs(p)); err == nil && fi.IsDir() {
			o.Globs = append(o.Globs, escapeGlob(p)+"/**")
		} else {
			o.Globs = append(o.Globs, escapeGlob(p))
		}
	}
	o.Paths = nil
	return nil
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
