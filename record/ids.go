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

// ParseOptionalRunID is ParseRunID for text that may be empty (a flag not
// given): "" is the zero RunID, which names no run.
func ParseOptionalRunID(s string) (RunID, error) {
	if s == "" {
		return "", nil
	}
	return ParseRunID(s)
}

// ParseOptionalCallID is ParseCallID for text that may be empty: "" is the
// zero CallID, which names no call.
func ParseOptionalCallID(s string) (CallID, error) {
	if s == "" {
		return "", nil
	}
	return ParseCallID(s)
}

// CheckpointID names a checkpoint within its run: ckpt_001 for the first.
// The checkpoint commit's id is the global handle; this one is for people.
type CheckpointID string

// ErrBadCheckpointID is returned for text that is no checkpoint id.
var ErrBadCheckpointID = errors.New("invalid checkpoint id")

// NewCheckpointID is the id of the seq-th checkpoint of a run.
func NewCheckpointID(seq int) CheckpointID { return CheckpointID(fmt.Sprintf("ckpt_%03d", seq)) }

// ParseCheckpointID accepts "ckpt_" and a sequence number of at least
// three digits (ckpt_001, ckpt_1234), as NewCheckpointID writes them.
func ParseCheckpointID(s string) (CheckpointID, error) {
	if seq, ok := CheckpointSeq(s); ok && string(NewCheckpointID(seq)) == s {
		return CheckpointID(s), nil
	}
	return "", fmt.Errorf("%w %q: want ckpt_ and a number of at least three digits, e.g. ckpt_007", ErrBadCheckpointID, s)
}

// CheckpointSeq returns the sequence number a checkpoint id names.
func CheckpointSeq[S ~string](id S) (int, bool) {
	digits, ok := strings.CutPrefix(string(id), "ckpt_")
	if !ok || digits == "" || len(digits) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n > 0
}

// Seq is the sequence number the id names; 0 for an id that names none.
func (id CheckpointID) Seq() int { n, _ := CheckpointSeq(id); return n }

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

// RunIDOf maps text into a run id that ParseRunID accepts: characters
// outside the alphabet become '_', a first character that is not a letter
// or digit gets an "r" before it, ".." becomes "._", an ending in "." or
// ".lock" gets a '_' after it, and the id is cut to MaxRunIDLen. Valid ids
// come back as they are. For ids derived from other text (an agent's
// session id); text a person typed is parsed instead, so that a typo is an
// error rather than another run.
func RunIDOf(text string) RunID {
	b := []byte(mapAlphabet(text, func(c byte) bool { return isAlnum(c) || c == '.' || c == '_' || c == '-' }))
	if len(b) == 0 || !isAlnum(b[0]) {
		b = append([]byte{'r'}, b...)
	}
	s := strings.ReplaceAll(string(b), "..", "._")
	if len(s) > MaxRunIDLen {
		s = s[:MaxRunIDLen]
	}
	for strings.HasSuffix(s, ".") || strings.HasSuffix(s, ".lock") {
		s = s[:len(s)-1] + "_"
	}
	return RunID(s)
}

// CallIDOf maps text into a call id that ParseCallID accepts, as RunIDOf
// does for run ids (a first character that is not a letter or digit gets
// a "t" before it).
func CallIDOf(text string) CallID {
	b := []byte(mapAlphabet(text, func(c byte) bool { return isAlnum(c) || strings.IndexByte("._-:@", c) >= 0 }))
	if len(b) == 0 || !isAlnum(b[0]) {
		b = append([]byte{'t'}, b...)
	}
	s := strings.ReplaceAll(string(b), "..", "._")
	if len(s) > MaxCallIDLen {
		s = s[:MaxCallIDLen]
	}
	return CallID(s)
}

// mapAlphabet replaces each byte outside the alphabet with '_'.
func mapAlphabet(text string, ok func(byte) bool) string {
	b := []byte(text)
	for i, c := range b {
		if !ok(c) {
			b[i] = '_'
		}
	}
	return string(b)
}

// UnmarshalText parses a run id from JSON (a request, a record): decoding
// is an edge where text becomes an id. Empty text is the zero RunID.
func (id *RunID) UnmarshalText(text []byte) error {
	v, err := ParseOptionalRunID(string(text))
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// UnmarshalText parses a call id from JSON; empty text is the zero CallID.
func (id *CallID) UnmarshalText(text []byte) error {
	v, err := ParseOptionalCallID(string(text))
	if err != nil {
		return err
	}
	*id = v
	return nil
}
