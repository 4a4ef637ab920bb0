package git

import "github.com/gitguard/gitguard/record"

// Hash is a SHA-1 git object id: the record package's type, named here for
// the plumbing that reads and writes objects.
type Hash = record.Hash

// ZeroHash is the all-zero id git uses for "no object".
var ZeroHash = record.ZeroHash

// ErrBadHash is returned by ParseHash for text that is not 40 hex digits.
var ErrBadHash = record.ErrBadHash

// ParseHash parses a full 40-digit hex object id.
func ParseHash(s string) (Hash, error) { return record.ParseHash(s) }
