package odb

import (
	"crypto/sha1"
	"hash"
	"strconv"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/record"
)

// Type is a git object type.
type Type string

// The object types gitguard writes.
const (
	TypeBlob   Type = "blob"
	TypeTree   Type = "tree"
	TypeCommit Type = "commit"
)

// Mode is a git tree entry mode: the record package's type, named here
// for the plumbing that reads and writes trees.
type Mode = record.Mode

// The modes git stores in trees.
const (
	ModeNone    = record.ModeNone
	ModeFile    = record.ModeFile
	ModeExec    = record.ModeExec
	ModeSymlink = record.ModeSymlink
	ModeGitlink = record.ModeGitlink
	ModeTree    = record.ModeTree
)

// ParseMode parses an octal mode as found in trees and records.
func ParseMode(s string) (Mode, error) { return record.ParseMode(s) }

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
