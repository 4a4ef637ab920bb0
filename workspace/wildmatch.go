package workspace

// This file matches gitignore patterns the way git's wildmatch() does with
// WM_PATHNAME: '*' and '?' never match '/', "**" between slashes (or at
// either end) matches any number of folders, [...] sets take '!' or '^' to
// negate, ranges and POSIX classes, and '\' quotes the next character.
// go-git's matcher and doublestar both differ from git here (doublestar
// expands {a,b}, which git takes literally), so the algorithm is written out.

const (
	wmNoMatch = iota
	wmMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch reports whether text matches the git wildcard pattern.
func wildmatch(pattern, text string) bool {
	return dowild(pattern, 0, text, 0) == wmMatch
}

func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isGlobSpecial(c byte) bool { return c == '*' || c == '?' || c == '[' || c == '\\' }

func dowild(p string, pi int, t string, ti int) int {
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc := p[pi]
		tc := at(t, ti)
		if ti >= len(t) && pc != '*' {
			return wmAbortAll
		}
		switch pc {
		case '\\':
			pi++
			pc = at(p, pi)
			if tc != pc {
				return wmNoMatch
			}
		case '?':
			if tc == '/' {
				return wmNoMatch
			}
		case '*':
			matchSlash := false
			pi++
			if at(p, pi) == '*' {
				prev := pi - 2
				for at(p, pi+1) == '*' {
					pi++
				}
				pi++
				if (prev < 0 || p[prev] == '/') &&
					(pi >= len(p) || p[pi] == '/' || (p[pi] == '\\' && at(p, pi+1) == '/')) {
					if at(p, pi) == '/' && dowild(p, pi+1, t, ti) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				}
			}
			if pi >= len(p) {
				if !matchSlash {
					for i := ti; i < len(t); i++ {
						if t[i] == '/' {
							return wmNoMatch
						}
					}
				}
				return wmMatch
			}
			if !matchSlash && p[pi] == '/' {
				slash := -1
				for i := ti; i < len(t); i++ {
					if t[i] == '/' {
						slash = i
						break
					}
				}
				if slash < 0 {
					return wmNoMatch
				}
				ti = slash
				// The for loop's increment consumes the slash in both strings.
				continue
			}
			for {
				if ti >= len(t) {
					break
				}
				if !isGlobSpecial(p[pi]) {
					lit := p[pi]
					for ti < len(t) && (matchSlash || t[ti] != '/') && t[ti] != lit {
						ti++
					}
					if at(t, ti) != lit || ti >= len(t) {
						return wmNoMatch
					}
				}
				tc = t[ti]
				m := dowild(p, pi, t, ti)
				if m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && tc == '/' {
					return wmAbortToStarStar
				}
				ti++
			}
			return wmAbortAll
		case '[':
			pi++
			pc = at(p, pi)
			if pc == '^' {
				pc = '!'
			}
			negated := pc == '!'
			if negated {
				pi++
				pc = at(p, pi)
			}
			var prev byte
			matched := false
			for {
				if pi >= len(p) {
					return wmAbortAll
				}
				switch {
				case pc == '\\':
					pi++
					pc = at(p, pi)
					if pi >= len(p) {
						return wmAbortAll
					}
					if tc == pc {
						matched = true
					}
				case pc == '-' && prev != 0 && pi+1 < len(p) && p[pi+1] != ']':
					pi++
					pc = p[pi]
					if pc == '\\' {
						pi++
						pc = at(p, pi)
						if pi >= len(p) {
							return wmAbortAll
						}
					}
					if tc <= pc && tc >= prev {
						matched = true
					}
					pc = 0
				case pc == '[' && at(p, pi+1) == ':':
					s := pi + 2
					pi = s
					for pi < len(p) && p[pi] != ']' {
						pi++
					}
					if pi >= len(p) {
						return wmAbortAll
					}
					if pi-s-1 < 0 || p[pi-1] != ':' {
						// No ":]": a plain '[' in the set.
						pi = s - 2
						pc = '['
						if tc == pc {
							matched = true
						}
						break
					}
					ok, valid := charClass(p[s:pi-1], tc)
					if !valid {
						return wmAbortAll
					}
					if ok {
						matched = true
					}
					pc = 0
				default:
					if tc == pc {
						matched = true
					}
				}
				prev = pc
				pi++
				pc = at(p, pi)
				if pc == ']' {
					break
				}
			}
			if matched == negated || tc == '/' {
				return wmNoMatch
			}
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if ti < len(t) {
		return wmNoMatch
	}
	return wmMatch
}

func charClass(name string, c byte) (match, valid bool) {
	isUpper := c >= 'A' && c <= 'Z'
	isLower := c >= 'a' && c <= 'z'
	isDigit := c >= '0' && c <= '9'
	isAlpha := isUpper || isLower
	switch name {
	case "alnum":
		return isAlpha || isDigit, true
	case "alpha":
		return isAlpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 32 || c == 127, true
	case "digit":
		return isDigit, true
	case "graph":
		return c > 32 && c < 127, true
	case "lower":
		return isLower, true
	case "print":
		return c >= 32 && c < 127, true
	case "punct":
		return c > 32 && c < 127 && !isAlpha && !isDigit, true
	case "space":
		// git's own isspace (sane_ctype): not \v or \f, unlike C's.
		return c == ' ' || c == '\t' || c == '\n' || c == '\r', true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
