package record

import (
	"errors"
	"fmt"
	"strings"
)

// A work tree's view is everything besides the run's Settings that decides
// what gitguard sees of it: the git configuration keys that steer ignore
// rules, attributes, filters and stat trust (ViewConfigKey), the ignore
// and attribute files outside the work tree ($GIT_DIR/info/exclude,
// core.excludesFile, $GIT_DIR/info/attributes, core.attributesFile), the
// .gitignore files a walk reads, and the index's skip-worktree and
// assume-unchanged bits. A snapshot records the view it saw as a tree of
// blobs (see docs/FORMAT.md, "The view"), so that two views compare as two
// tree ids and differ by the entries DiffTrees names.

// View names the two views a checkpoint keeps in its view/ folder: the one
// its run started with, which every later checkpoint of the run carries and
// the run's snapshots are taken under, and the one seen when this
// checkpoint's snapshot was taken (equal to Start unless something changed
// it).
type View struct {
	Start Hash `json:"start"`
	Seen  Hash `json:"seen"`
}

// Validate checks a view as read back: both trees are named.
func (v *View) Validate() error {
	if v.Start.IsZero() || v.Seen.IsZero() {
		return errors.New("view: a tree id is missing")
	}
	return nil
}

// Entries of a view tree.
const (
	ViewConfig         = "config"          // "key=value" lines, sorted: the ViewConfigKey keys set
	ViewInfoExclude    = "info-exclude"    // $GIT_DIR/info/exclude
	ViewExcludesFile   = "excludes-file"   // core.excludesFile (or git's default file)
	ViewInfoAttributes = "info-attributes" // $GIT_DIR/info/attributes
	ViewAttributesFile = "attributes-file" // core.attributesFile (or git's default file)
	ViewIndexBits      = "index-bits"      // "skip-worktree PATH" and "assume-unchanged PATH" lines
	ViewIgnores        = "ignores"         // folder: every .gitignore a walk read, at its path
)

// viewConfigPrefixes are the configuration keys (lower case, as git
// compares them) and key prefixes that decide what gitguard sees.
var viewConfigPrefixes = []string{
	"gitguard.",
	"filter.",
	"core.excludesfile", "core.attributesfile", "attr.tree",
	"core.autocrlf", "core.eol", "core.safecrlf",
	"core.filemode", "core.symlinks", "core.ignorecase", "core.precomposeunicode",
	"core.trustctime", "core.checkstat",
	"core.sparsecheckout", "core.sparsecheckoutcone", "index.sparse",
}

// ViewConfigKey reports whether the configuration key (lower case) is part
// of the view.
func ViewConfigKey(key string) bool {
	for _, p := range viewConfigPrefixes {
		if strings.HasSuffix(p, ".") && strings.HasPrefix(key, p) || key == p {
			return true
		}
	}
	return false
}

// Bounds of a call's list of view changes as read back.
const (
	maxViewChanges   = 256
	maxViewChangeLen = 4096
)

func validateViewChanges(list []string) error {
	if len(list) > maxViewChanges {
		return fmt.Errorf("%d view changes, more than %d", len(list), maxViewChanges)
	}
	for _, s := range list {
		if s == "" || len(s) > maxViewChangeLen || strings.ContainsAny(s, "\x00\n") {
			return errors.New("a view change is empty, too long or holds NUL or a newline")
		}
	}
	return nil
}
