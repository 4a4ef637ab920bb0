package workspace

import (
	"bytes"
	"hash/fnv"
	"strconv"
	"strings"
)

// This file parses gitattributes files as git's attr.c does (git 2.39):
// a line is a pattern (gitignore-like, optionally C-quoted, never negated)
// followed by attribute states, or a macro definition "[attr]name states"
// where macros are allowed (top-level and global files only). "attr" sets,
// "-attr" unsets, "!attr" makes unspecified again, "attr=value" gives a
// value. Lines git rejects (bad attribute names, negative patterns, macros
// in a subfolder, lines of 2048 bytes or more) are dropped whole, as git
// drops them (with a warning on its side).

// Limits from attr.c: longer lines, and larger files, are ignored by git.
const (
	attrMaxLineLength = 2048
	attrMaxFileSize   = 100 << 20
)

// attrKind is the state an attribute line gives an attribute.
type attrKind uint8

const (
	attrUnspecified attrKind = iota // "!attr", or no line says anything
	attrSet                         // "attr"
	attrUnset                       // "-attr"
	attrValue                       // "attr=value"
)

// attrState is one "attr", "-attr", "!attr" or "attr=value" of a line.
type attrState struct {
	name  string
	kind  attrKind
	value string // for attrValue
}

// String renders the state as `git check-attr` prints it.
func (s attrState) String() string {
	switch s.kind {
	case attrSet:
		return "set"
	case attrUnset:
		return "unset"
	case attrValue:
		return s.value
	}
	return "unspecified"
}

// attrLine is one line of an attributes file: a macro definition (macro
// is its name) or a pattern with the states it assigns.
type attrLine struct {
	macro  string
	pat    attrPattern
	states []attrState
	// relevant says a state of the line can decide a content-conversion
	// attribute, directly or through a macro (see attrRules.converts).
	relevant bool
}

// attrPattern is the path pattern of an attribute line, matched as attr.c's
// path_matches does.
type attrPattern struct {
	pattern   string
	nodir     bool // no '/': matched against the last path component
	mustBeDir bool // trailing '/': never matches a file
	fold      bool // core.ignoreCase: pattern is ASCII lower case
}

// attrFile is one parsed attributes file; base is the folder it applies
// to ("" for the top of the work tree and the global files).
type attrFile struct {
	base  string
	lines []attrLine
	sum   uint64 // of the folder and the content: what makes the file's rules
}

const attrBlank = " \t\r\n"

// parseAttrs parses the content of an attributes file for folder base.
// macroOK allows "[attr]" lines (top-level and global files).
func parseAttrs(data []byte, base string, macroOK, fold bool) *attrFile {
	h := fnv.New64a()
	h.Write([]byte(base))
	h.Write([]byte{0})
	h.Write(data)
	f := &attrFile{base: base, sum: h.Sum64()}
	if fold {
		f.base = foldCase(base)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if i := bytes.IndexByte(line, 0); i >= 0 {
			line = line[:i] // git reads lines as C strings
		}
		if l, ok := parseAttrLine(string(line), macroOK, fold); ok {
			f.lines = append(f.lines, l)
		}
	}
	return f
}

// parseAttrLine is attr.c's parse_attr_line; ok is false for a line that
// assigns nothing or that git rejects.
func parseAttrLine(line string, macroOK, fold bool) (attrLine, bool) {
	cp := strings.TrimLeft(line, attrBlank)
	if cp == "" || cp[0] == '#' {
		return attrLine{}, false
	}
	if len(line) >= attrMaxLineLength {
		return attrLine{}, false
	}
	var name, states string
	if cp[0] == '"' {
		if n, rest, ok := unquoteC(cp); ok {
			name, states = n, rest
		}
	}
	if name == "" && states == "" {
		n := strings.IndexAny(cp, attrBlank)
		if n < 0 {
			n = len(cp)
		}
		name, states = cp[:n], cp[n:]
	}
	var l attrLine
	const macroPrefix = "[attr]"
	if len(name) > len(macroPrefix) && strings.HasPrefix(name, macroPrefix) {
		if !macroOK {
			return attrLine{}, false
		}
		m := strings.TrimLeft(name[len(macroPrefix):], attrBlank)
		if n := strings.IndexAny(m, attrBlank); n >= 0 {
			m = m[:n]
		}
		if !validAttrName(m) {
			return attrLine{}, false
		}
		l.macro = m
	} else {
		p := attrPattern{fold: fold}
		if strings.HasPrefix(name, "!") {
			return attrLine{}, false // negative patterns are ignored
		}
		if strings.HasSuffix(name, "/") {
			p.mustBeDir = true
			name = name[:len(name)-1]
		}
		p.nodir = !strings.Contains(name, "/")
		p.pattern = name
		if fold {
			p.pattern = foldCase(name)
		}
		l.pat = p
	}
	for states = strings.TrimLeft(states, attrBlank); states != ""; {
		tok := states
		if n := strings.IndexAny(states, attrBlank); n >= 0 {
			tok, states = states[:n], strings.TrimLeft(states[n:], attrBlank)
		} else {
			states = ""
		}
		s, ok := parseAttrState(tok)
		if !ok {
			return attrLine{}, false
		}
		l.states = append(l.states, s)
	}
	return l, true
}

// parseAttrState parses one token of states (no blanks in it).
func parseAttrState(tok string) (attrState, bool) {
	name, value, hasValue := strings.Cut(tok, "=")
	var s attrState
	switch {
	case strings.HasPrefix(name, "-"):
		s.kind, name = attrUnset, name[1:]
	case strings.HasPrefix(name, "!"):
		s.kind, name = attrUnspecified, name[1:]
	case hasValue:
		s.kind, s.value = attrValue, value
	default:
		s.kind = attrSet
	}
	if !validAttrName(name) {
		return attrState{}, false
	}
	s.name = name
	return s, true
}

// validAttrName is attr.c's attr_name_valid.
func validAttrName(name string) bool {
	if name == "" || name[0] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '-', c == '.', c == '_', '0' <= c && c <= '9', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		default:
			return false
		}
	}
	return true
}

// unquoteC is git's unquote_c_style: s starts with '"'; it returns the
// unquoted string and what follows the closing quote. ok is false when the
// quoting is malformed (git then takes the pattern as written).
func unquoteC(s string) (out, rest string, ok bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return b.String(), s[i+1:], true
		case '\\':
			i++
			if i >= len(s) {
				return "", "", false
			}
			switch c = s[i]; c {
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'v':
				b.WriteByte('\v')
			case '\\', '"':
				b.WriteByte(c)
			case '0', '1', '2', '3':
				if i+2 >= len(s) {
					return "", "", false
				}
				v, err := strconv.ParseUint(s[i:i+3], 8, 8)
				if err != nil {
					return "", "", false
				}
				b.WriteByte(byte(v))
				i += 2
			default:
				return "", "", false
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false
}

// matches is attr.c's path_matches for a file (never a folder): path is
// relative to the top of the work tree, name its last component, base the
// folder of the attributes file the pattern comes from.
func (p *attrPattern) matches(path, name, base string) bool {
	if p.mustBeDir {
		return false
	}
	if p.fold {
		path, name = foldCase(path), foldCase(name)
	}
	if p.nodir {
		return wildmatch(p.pattern, name)
	}
	pat := strings.TrimPrefix(p.pattern, "/")
	rel := path
	if base != "" {
		var ok bool
		if rel, ok = strings.CutPrefix(path, base+"/"); !ok {
			return false
		}
	}
	return wildmatch(pat, rel)
}
