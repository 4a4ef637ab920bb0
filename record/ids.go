package record

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// RunID names a run. A valid one is a one-level git ref name on every
// platform; ParseRunID is the only way text becomes one outside this package.
type RunID string

// CallID names a tool call within its run. It names a tree entry and appears
// in commands; ParseCallID validates it.
type CallID string

// MaxRunIDLen bounds run ids so that ref file names stay portable.
const MaxRunIDLen = 100

// MaxCallIDLen bounds call ids.
const MaxCallIDLen = 128

// ErrBadRunID is returned for run ids that cannot name a ref safely.
var ErrBadRunID = errors.New("invalid run id")

// ErrBadCallID is returned for call ids outside the allowed alphabet.
var ErrBadCallID = errors.New("invalid call id")

// ParseRunID accepts ids made of ASCII letters, digits, '.', '_' and '-',
// starting with a letter or digit, without "..", not ending in ".lock" or '.',
// at most MaxRunIDLen long: a strict subset of what git check-ref-format
// allows, so every valid id is a valid one-level ref name on every platform.
func ParseRunID(s string) (RunID, error) {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrBadRunID, s, why) }
	switch {
	case s == "":
		return "", bad("empty")
	case len(s) > MaxRunIDLen:
		return "", bad(fmt.Sprintf("longer than %d characters", MaxRunIDLen))
	case !isAlnum(s[0]):
		return "", bad("must start with a letter or digit")
	case strings.Contains(s, ".."):
		return "", bad(`must not contain ".."`)
	case strings.HasSuffix(s, ".lock") || strings.HasSuffix(s, "."):
		return "", bad(`must not end in "." or ".lock"`)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return "", bad("use only letters, digits, '.', '_' and '-'")
		}
	}
	return RunID(s), nil
}

// Validate reports whether id is what ParseRunID would return.
func (id RunID) Validate() error { _, err := ParseRunID(string(id)); return err }

// NewRunID returns a fresh run id: run-YYYYMMDD-HHMMSS-xxxxxx.
func NewRunID(now time.Time) RunID {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return RunID("run-" + now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:]))
}

// ParseCallID accepts ids of letters, digits, and '.', '_', '-', ':', '@'
// after the first character, without "..", at most MaxCallIDLen long: tool
// use ids of every agent fit, and every valid id is a safe tree entry name.
func ParseCallID(s string) (CallID, error) {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrBadCallID, s, why) }
	switch {
	case s == "":
		return "", bad("empty")
	case len(s) > MaxCallIDLen:
		return "", bad(fmt.Sprintf("longer than %d characters", MaxCallIDLen))
	case strings.Contains(s, ".."):
		return "", bad(`contains ".."`)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && (i == 0 || strings.IndexByte("._-:@", c) < 0) {
			return "", bad("use letters, digits, and '.', '_', '-', ':', '@' after the first character")
		}
	}
	return CallID(s), nil
}

// Validate reports whether id is what ParseCallID would return.
func (id CallID) Validate() error { _, err := ParseCallID(string(id)); return err }

// CheckpointID formats the id of the seq-th checkpoint of a run: ckpt_001.
func CheckpointID(seq int) string { return fmt.Sprintf("ckpt_%03d", seq) }

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// JoinCallIDs joins call ids with sep, as strings.Join does.
func JoinCallIDs(ids []CallID, sep string) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return strings.Join(s, sep)
}
