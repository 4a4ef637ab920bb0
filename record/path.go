package record

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrBadPath is returned for paths that could escape the work tree or reach
// into .git: absolute, with "." or ".." or ".git" components (any case or
// spelling a file system folds to it), empty components, NUL; and for
// names the JSON records cannot carry losslessly (not valid UTF-8).
var ErrBadPath = errors.New("unsafe path")

// MaxPathLen bounds recorded paths.
const MaxPathLen = 4096

// MaxTreeDepth bounds how deep a snapshot tree may nest. A path n folders
// deep has at least 2n bytes, so no path within MaxPathLen nests deeper:
// whatever the recorder records, a reader of a fetched run accepts.
const MaxTreeDepth = MaxPathLen / 2

// ValidatePath checks a slash-separated repository path for safety.
//
// It accepts every name git accepts in a tree and JSON carries as it is:
// newline, tab, backslash, a leading dash and other odd bytes are legal in
// git names, and refusing them here would make the recorder write records
// this reader refuses. Text output quotes such names (QuotePath), so a
// newline in a name cannot forge a line. Names that are not valid UTF-8
// are refused: encoding/json would replace their bytes and the record would
// name another file; the recorder skips them, saying so (see
// RecordablePath).
func ValidatePath(p string) error {
	if why := pathProblem(p); why != "" {
		return fmt.Errorf("%w %s: %s", ErrBadPath, Quoted(p), why)
	}
	return nil
}

// pathProblem says what is wrong with p ("" when nothing is).
func pathProblem(p string) string {
	switch {
	case p == "":
		return "empty"
	case len(p) > MaxPathLen:
		return "too long"
	case strings.HasPrefix(p, "/"):
		return "absolute"
	case strings.ContainsRune(p, 0):
		return "NUL in name"
	case !utf8.ValidString(p):
		return "name is not valid UTF-8"
	}
	for _, c := range strings.Split(p, "/") {
		if why := badName(c); why != "" {
			return why
		}
	}
	return ""
}

// RecordablePath says why the recorder cannot carry path p in a record
// ("" when it can). The recorder lists such a path as skipped, with this
// reason, instead of writing a record that readers refuse.
func RecordablePath(p string) string {
	if why := pathProblem(p); why != "" {
		return why + "; the records cannot carry it"
	}
	return ""
}

// ValidateTreeName checks one tree entry name as ValidatePath checks a
// path's components. Tree entries carry any byte but NUL and '/', so the
// UTF-8 rule of ValidatePath does not apply.
func ValidateTreeName(name string) error {
	if why := badName(name); why != "" {
		return fmt.Errorf("%w: tree entry %s: %s", ErrBadPath, Quoted(name), why)
	}
	if strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("%w: tree entry %s: slash or NUL in name", ErrBadPath, Quoted(name))
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
	if ascii(name) {
		return false // the ignorable code points all take several bytes
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

// ascii reports whether s holds only ASCII bytes.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
