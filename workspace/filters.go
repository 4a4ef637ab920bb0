package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitguard/gitguard/internal/git"
)

// Content conversion. git may store a file differently from its bytes on
// disk: core.autocrlf and the text/eol attributes change line endings,
// clean/smudge filters (Git LFS) replace the content, ident expands $Id$.
// The index's blob ids are the converted ("clean") form, so gitguard records
// every file in that form too — a snapshot is what `git add -A` would stage,
// an LFS file is recorded as its pointer — and hands such paths to git
// itself to hash (`git hash-object`) and to write back (`git cat-file
// --filters`). Paths nothing converts, the common case, never leave the
// process: a path can only convert if core.autocrlf is on, or a global or
// info/attributes file exists, or a .gitattributes sits in one of its folders.

// conversionAttrs are the attributes that change content between the work
// tree and the object database.
var conversionAttrs = []string{"text", "eol", "crlf", "filter", "ident", "working-tree-encoding"}

// DefaultAttributesFile returns the global attributes file git reads when
// core.attributesFile is unset: $XDG_CONFIG_HOME/git/attributes, else
// ~/.config/git/attributes. A configured value starting with "~/" is expanded.
func DefaultAttributesFile(configured string) string {
	return globalGitFile(configured, "attributes")
}

func (w *Workspace) initConversion() {
	switch strings.ToLower(w.configString("core.autocrlf")) {
	case "true", "input", "yes", "on", "1":
		w.autocrlf = true
	}
	for _, f := range []string{w.opts.AttributesFile, filepath.Join(w.repo.CommonDir, "info", "attributes")} {
		if f == "" {
			continue
		}
		if fi, err := os.Stat(f); err == nil && fi.Size() > 0 {
			w.globalAttrs = true
		}
	}
}

func (w *Workspace) configString(key string) string {
	v, _ := w.config.Get(key)
	return v
}

// Converts reports whether git converts the content of path (a regular
// file) between the work tree and the object database.
func (w *Workspace) Converts(ctx context.Context, path string) (bool, error) {
	if w.autocrlf {
		return true, nil
	}
	if !w.globalAttrs && !w.hasAttributesAbove(path) {
		return false, nil
	}
	vals, err := git.CheckAttr(ctx, w.repo.WorkTree, path, conversionAttrs...)
	if err != nil {
		return false, err
	}
	for _, a := range conversionAttrs {
		if v := vals[a]; v != "" && v != "unspecified" && v != "unset" {
			return true, nil
		}
	}
	return false, nil
}

// hasAttributesAbove reports whether a .gitattributes file exists in any
// folder from the top of the work tree down to path's.
func (w *Workspace) hasAttributesAbove(path string) bool {
	dir := ""
	for {
		if _, err := os.Lstat(w.Abs(filepath.ToSlash(filepath.Join(dir, ".gitattributes")))); err == nil {
			return true
		}
		i := strings.IndexByte(path[len(dir):], '/')
		if i < 0 {
			return false
		}
		if dir == "" {
			dir = path[:i]
		} else {
			dir = path[:len(dir)+1+i]
		}
	}
}
