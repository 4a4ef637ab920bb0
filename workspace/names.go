package workspace

import (
	"runtime"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/gitguard/gitguard/internal/git"
)

// nameRules say how names read from the work tree are spelled and
// compared with the index's, as git's core.ignoreCase and
// core.precomposeUnicode decide.
type nameRules struct {
	// ignoreCase: a name matches an index entry or an ignore pattern that
	// differs from it only in ASCII case, and takes the index's spelling
	// (git's fspathcmp and name hash). git sets it on case-insensitive
	// file systems (macOS and Windows by default).
	ignoreCase bool
	// precompose: names read from disk are composed to Unicode NFC before
	// anything else looks at them, as git does on macOS, whose file
	// systems hand out decomposed (NFD) names. git does this on macOS only.
	precompose bool
}

// nameRulesFor reads the rules from the repository's configuration on
// the operating system goos.
func nameRulesFor(cfg git.Config, goos string) nameRules {
	return nameRules{
		ignoreCase: cfg.Bool("core.ignorecase", false),
		// Only git for macOS reads the setting. Unset counts as true there:
		// its file systems find a file by either form, so composing costs
		// nothing and matches the index other systems wrote.
		precompose: goos == "darwin" && cfg.Bool("core.precomposeunicode", true),
	}
}

// hostNameRules are the rules for this machine.
func hostNameRules(cfg git.Config) nameRules { return nameRulesFor(cfg, runtime.GOOS) }

// fromDisk is the name git records for a name read from a folder.
func (r nameRules) fromDisk(name string) string {
	if r.precompose {
		return precompose(name)
	}
	return name
}

// isDotGit reports whether a folder entry is the repository's .git, which
// a walk never enters (git's treat_path compares with fspathcmp).
func (r nameRules) isDotGit(name string) bool {
	if r.ignoreCase {
		return len(name) == 4 && foldCase(name) == ".git"
	}
	return name == ".git"
}

// precompose returns name in Unicode NFC, as git's precompose_utf8 turns
// macOS's decomposed names back into the form other systems write. ASCII
// names and names that are not valid UTF-8 are returned unchanged.
func precompose(name string) string {
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii || !utf8.ValidString(name) || norm.NFC.IsNormalString(name) {
		return name
	}
	return norm.NFC.String(name)
}

// foldCase folds ASCII letters to lower case, as git's case-insensitive
// comparisons do (they leave other bytes alone).
func foldCase(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
