package record

import (
	"errors"
	"fmt"
	"strings"
)

// ErrBadPath is returned for paths that could escape the work tree or reach
// into .git: absolute, with "." or ".." or ".git" components (any case or
// spelling a file system folds to it), empty components, NUL, newline or
// backslash.
var ErrBadPath = errors.New("unsafe path")

// MaxPathLen bounds recorded paths.
const MaxPathLen = 4096

// ValidatePath checks a slash-separated repository path for safety.
func ValidatePath(p string) error {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrBadPath, p, why) }
	switch {
	case p == "":
		return bad("empty")
	case len(p) > MaxPathLen:
		return bad("too long")
	case strings.HasPrefix(p, "/"):
		return bad("absolute")
	case strings.ContainsAny(p, "\x00\n"):
		return bad("NUL or newline in name")
	case strings.Contains(p, "\\"):
		return bad("backslash in name")
	}
	for _, c := range strings.Split(p, "/") {
		if why := badName(c); why != "" {
			return bad(why)
		}
	}
	return nil
}

// ValidateTreeName checks one tree entry name as ValidatePath checks a
// path's components.
func ValidateTreeName(name string) error {
	if why := badName(name); why != "" {
		return fmt.Errorf("%w: tree entry %q: %s", ErrBadPath, name, why)
	}
	if strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("%w: tree entry %q: slash or NUL in name", ErrBadPath, name)
	}
	return nil
}

func badName(c string) string {
	switch {
	case c == "":
		return "empty component"
	case c == "." || c == "..":
		return "relative component"
	case strings.EqualFold(strings.TrimRight(c, ". "), ".git"):
		return ".git component"
	case DotGitAlias(c):
		return "another spelling of .git"
	}
	return ""
}

// DotGitAlias reports names that some file systems resolve to ".git": the
// NTFS short name GIT~1 and HFS+'s ignorable code points (git's protectNTFS
// and protectHFS checks).
func DotGitAlias(name string) bool {
	if strings.EqualFold(name, "git~1") {
		return true
	}
	stripped := strings.Map(func(r rune) rune {
		switch {
		case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
			return -1
		}
		return r
	}, name)
	return stripped != name && strings.EqualFold(strings.TrimRight(stripped, ". "), ".git")
}
