package gitrefs

import (
	"errors"
	"fmt"
	"strings"
)

// Namespace is the prefix of every ref gitguard writes.
const Namespace = "refs/agent-checkpoints/"

const runsPrefix = Namespace + "runs/"

// MaxRunIDLen bounds run ids so that ref file names stay portable.
const MaxRunIDLen = 100

// ErrBadRunID is returned for run ids that cannot name a ref safely.
var ErrBadRunID = errors.New("invalid run id")

// RunRef returns the ref that points at the newest checkpoint of run id.
func RunRef(id string) string { return runsPrefix + id }

// ParseRunRef returns the run id named by ref, or false when ref is not a run ref.
func ParseRunRef(ref string) (string, bool) {
	id, ok := strings.CutPrefix(ref, runsPrefix)
	if !ok || ValidateRunID(id) != nil {
		return "", false
	}
	return id, true
}

// RunsPattern is the for-each-ref pattern and refspec side matching all run refs.
const RunsPattern = runsPrefix + "*"

// ValidateRunID accepts ids made of ASCII letters, digits, '.', '_' and '-',
// starting with a letter or digit, without "..", not ending in ".lock" or '.',
// at most MaxRunIDLen long: a strict subset of what git check-ref-format
// allows, so every valid id is a valid one-level ref name on every platform.
func ValidateRunID(id string) error {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrBadRunID, id, why) }
	switch {
	case id == "":
		return bad("empty")
	case len(id) > MaxRunIDLen:
		return bad(fmt.Sprintf("longer than %d characters", MaxRunIDLen))
	case !isAlnum(id[0]):
		return bad("must start with a letter or digit")
	case strings.Contains(id, ".."):
		return bad(`must not contain ".."`)
	case strings.HasSuffix(id, ".lock") || strings.HasSuffix(id, "."):
		return bad(`must not end in "." or ".lock"`)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return bad("use only letters, digits, '.', '_' and '-'")
		}
	}
	return nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
