package gitrefs

import (
	"strings"

	"github.com/gitguard/gitguard/record"
)

// Namespace is the prefix of every ref gitguard writes.
const Namespace = "refs/agent-checkpoints/"

const runsPrefix = Namespace + "runs/"

// RunRef returns the ref that points at the newest checkpoint of run id:
// refs/agent-checkpoints/runs/<name>, where <name> is the id with each
// uppercase letter X written "=x" (escapeCase). Run ids that differ only
// in case thus have ref names that differ in lowercase too, and never share
// a loose ref file on a case-insensitive file system (core.ignoreCase) or
// a line of packed-refs read case-insensitively. Ids without uppercase
// letters — every id gitguard makes — are their own names.
func RunRef(id record.RunID) string { return runsPrefix + escapeCase(string(id)) }

// legacyRunRef is the ref of run id as writers before case escaping named
// it: the id itself. It differs from RunRef only for ids with uppercase
// letters; such refs are still read, and moved to RunRef when next written.
func legacyRunRef(id record.RunID) string { return runsPrefix + string(id) }

// ParseRunRef returns the run id named by ref, or false when ref is not a
// run ref. It reads both the escaped names RunRef makes and the names of
// older writers (uppercase letters as they are).
func ParseRunRef(ref string) (record.RunID, bool) {
	name, ok := strings.CutPrefix(ref, runsPrefix)
	if !ok {
		return "", false
	}
	name, ok = unescapeCase(name)
	if !ok {
		return "", false
	}
	id, err := record.ParseRunID(name)
	return id, err == nil
}

// escapeCase writes each uppercase ASCII letter X of s as "=x". Run ids
// never hold '=', so the result is unambiguous, and git check-ref-format
// accepts '=' anywhere.
func escapeCase(s string) string {
	if strings.IndexFunc(s, isUpper) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b.WriteByte('=')
			b.WriteByte(c + ('a' - 'A'))
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeCase reverses escapeCase. A name without '=' is returned as it
// is (an older writer's name may hold uppercase letters); a name mixing
// '=' escapes and uppercase letters, or with '=' not before a lowercase
// letter, is no name escapeCase makes.
func unescapeCase(name string) (string, bool) {
	if !strings.Contains(name, "=") {
		return name, true
	}
	if strings.IndexFunc(name, isUpper) >= 0 {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c != '=' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(name) || name[i+1] < 'a' || name[i+1] > 'z' {
			return "", false
		}
		b.WriteByte(name[i+1] - ('a' - 'A'))
		i++
	}
	return b.String(), true
}

func isUpper(r rune) bool { return r >= 'A' && r <= 'Z' }

// RunsPattern is the for-each-ref pattern and refspec side matching all run refs.
const RunsPattern = runsPrefix + "*"
