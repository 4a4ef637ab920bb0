package odb

import (
	"crypto/sha1"
	"fmt"
	"hash"
	"strconv"

	"github.com/gitguard/gitguard/internal/git"
)

// Type is a git object type.
type Type string

// The object types gitguard writes.
const (
	TypeBlob   Type = "blob"
	TypeTree   Type = "tree"
	TypeCommit Type = "commit"
)

// Mode is a git tree entry mode.
type Mode uint32

// The modes git stores in trees.
const (
	ModeNone    Mode = 0 // absent: no file at the path
	ModeFile    Mode = 0o100644
	ModeExec    Mode = 0o100755
	ModeSymlink Mode = 0o120000
	ModeGitlink Mode = 0o160000
	ModeTree    Mode = 0o040000
)

// String returns the mode as git prints it (six octal digits, 000000 when absent).
func (m Mode) String() string { return fmt.Sprintf("%06o", uint32(m)) }

// IsFile reports whether m is a regular or executable file.
func (m Mode) IsFile() bool { return m == ModeFile || m == ModeExec }

// ParseMode parses an octal mode as found in trees and records.
func ParseMode(s string) (Mode, error) {
	v, err := strconv.ParseUint(s, 8, 32)
	if err != nil {
		return 0, fmt.Errorf("bad mode %q", s)
	}
	switch m := Mode(v); m {
	case ModeNone, ModeFile, ModeExec, ModeSymlink, ModeGitlink, ModeTree:
		return m, nil
	}
	return 0, fmt.Errorf("bad mode %q", s)
}

// MarshalText encodes the mode as six octal digits.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText parses six octal digits.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Hasher computes an object id incrementally; Write the content after NewHasher.
type Hasher struct{ hash.Hash }

// NewHasher starts hashing an object of the given type and size.
func NewHasher(t Type, size int64) Hasher {
	h := Hasher{sha1.New()}
	h.Write(header(t, size))
	return h
}

// Sum returns the object id.
func (h Hasher) Sum() git.Hash {
	var out git.Hash
	h.Hash.Sum(out[:0])
	return out
}

// HashObject returns the id of an object with this type and content, as
// `git hash-object -t TYPE` prints it.
func HashObject(t Type, data []byte) git.Hash {
	h := NewHasher(t, int64(len(data)))
	h.Write(data)
	return h.Sum()
}

func header(t Type, size int64) []byte {
	b := make([]byte, 0, 32)
	b = append(b, t...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, size, 10)
	return append(b, 0)
}
