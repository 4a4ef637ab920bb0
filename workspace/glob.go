package workspace

import (
	"errors"

	"github.com/bmatcuk/doublestar/v4"
)

// ErrBadGlob is returned for a malformed doublestar pattern.
var ErrBadGlob = errors.New("malformed glob pattern")

// ValidGlob reports whether g is a well-formed doublestar pattern.
func ValidGlob(g string) bool { return doublestar.ValidatePattern(g) }

func validGlob(g string) bool { return ValidGlob(g) }

// MatchGlob reports whether the slash-separated path matches the doublestar
// pattern; a pattern ending in "/**" also matches the folder itself.
func MatchGlob(pattern, path string) bool {
	ok, _ := doublestar.Match(pattern, path)
	return ok
}

// MatchAny reports whether path matches any of the patterns.
func MatchAny(patterns []string, path string) bool {
	for _, p := range patterns {
		if MatchGlob(p, path) {
			return true
		}
	}
	return false
}
