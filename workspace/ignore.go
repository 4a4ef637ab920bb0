package workspace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// ignorePattern is one line of a .gitignore-style file.
type ignorePattern struct {
	pattern  string
	negate   bool
	dirOnly  bool
	basename bool   // no '/' in the pattern: match the last path component
	base     string // folder of the .gitignore, "" for the top or global files
	fold     bool   // core.ignoreCase: pattern and base are ASCII lower case
}

// ignoreList is the patterns of one source (a .gitignore, info/exclude, the
// global excludes file), in file order.
type ignoreList []ignorePattern

// parseIgnore parses the content of a .gitignore-style file whose patterns
// are relative to base. With fold (core.ignoreCase) the patterns match
// regardless of ASCII case, as git's WM_CASEFOLD does.
func parseIgnore(data []byte, base string, fold bool) ignoreList {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var out ignoreList
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		s := trimTrailingSpaces(string(line))
		if s == "" {
			continue
		}
		p := ignorePattern{base: base, fold: fold}
		if fold {
			p.base = foldCase(base)
		}
		if s[0] == '!' {
			p.negate = true
			s = s[1:]
		}
		if strings.HasSuffix(s, "/") {
			// Only one slash goes, as in git: "foo//" keeps "foo/" and
			// then matches nothing.
			p.dirOnly = true
			s = s[:len(s)-1]
		}
		if s == "" {
			continue
		}
		if !strings.Contains(s, "/") {
			p.basename = true
		} else {
			s = strings.TrimPrefix(s, "/")
		}
		p.pattern = s
		if fold {
			p.pattern = foldCase(s)
		}
		out = append(out, p)
	}
	return out
}

// trimTrailingSpaces removes trailing spaces that are not quoted by '\'.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		// Count the backslashes before this space.
		bs := 0
		for i := end - 2; i >= 0 && s[i] == '\\'; i-- {
			bs++
		}
		if bs%2 == 1 {
			break
		}
		end--
	}
	return s[:end]
}

// match reports whether the pattern matches path (relative to the top of
// the work tree), and whether the match is decisive.
func (p *ignorePattern) match(path, name string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	if p.fold {
		path, name = foldCase(path), foldCase(name)
	}
	if p.basename {
		return wildmatch(p.pattern, name)
	}
	rel := path
	if p.base != "" {
		var ok bool
		rel, ok = strings.CutPrefix(path, p.base+"/")
		if !ok {
			return false
		}
	}
	return wildmatch(p.pattern, rel)
}

// ignoreStack is the chain of ignore lists that applies inside one folder:
// the folder's own .gitignore, its parents', then info/exclude and the
// global excludes file. It is immutable, so walkers share it freely.
type ignoreStack struct {
	list   ignoreList
	parent *ignoreStack
	// excluded marks the stack of a folder that is itself ignored (walked
	// only because it holds tracked files): everything in it is ignored,
	// as git cannot re-include a path whose parent folder is excluded.
	excluded bool
}

// enter returns the stack for the subfolder path (last component name) of
// the folder s applies to.
func (s *ignoreStack) enter(path, name string) *ignoreStack {
	if s.excludedDir() || !s.ignored(path, name, true) {
		return s
	}
	return &ignoreStack{parent: s, excluded: true}
}

// excludedDir reports whether s is the stack of an ignored folder.
func (s *ignoreStack) excludedDir() bool { return s != nil && s.excluded }

func (s *ignoreStack) push(l ignoreList) *ignoreStack {
	if len(l) == 0 {
		return s
	}
	return &ignoreStack{list: l, parent: s}
}

// ignored reports whether path (with last component name) is ignored: the
// last matching pattern of the most specific list decides, as in git.
func (s *ignoreStack) ignored(path, name string, isDir bool) bool {
	if s.excludedDir() {
		return true
	}
	for st := s; st != nil; st = st.parent {
		for i := len(st.list) - 1; i >= 0; i-- {
			if st.list[i].match(path, name, isDir) {
				return !st.list[i].negate
			}
		}
	}
	return false
}

// baseIgnores loads the repository-wide lists: core.excludesFile (or git's
// default location under XDG_CONFIG_HOME or ~/.config) and
// $GIT_DIR/info/exclude, in increasing priority.
func baseIgnores(commonDir, excludesFile string, fold bool) (*ignoreStack, error) {
	var st *ignoreStack
	for _, f := range []string{excludesFile, filepath.Join(commonDir, "info", "exclude")} {
		if f == "" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
				continue
			}
			return nil, err
		}
		st = st.push(parseIgnore(data, "", fold))
	}
	return st, nil
}

// DefaultExcludesFile returns the global excludes file git reads when
// core.excludesFile is unset: $XDG_CONFIG_HOME/git/ignore, else
// ~/.config/git/ignore. A configured value starting with "~/" is expanded.
func DefaultExcludesFile(configured string) string {
	return globalGitFile(configured, "ignore")
}

// globalGitFile resolves a core.* file setting the way git does, or git's
// default location of the file name under the XDG config folder.
func globalGitFile(configured, name string) string {
	home, _ := os.UserHomeDir()
	if configured != "" {
		if rest, ok := strings.CutPrefix(configured, "~/"); ok && home != "" {
			return filepath.Join(home, rest)
		}
		return configured
	}
	if xdg := os.Getenv("XDG_CONFIG_HOME"); xdg != "" {
		return filepath.Join(xdg, "git", name)
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "git", name)
}
