package git

import (
	"encoding/hex"
	"errors"
	"fmt"
)

// Hash is a SHA-1 git object id.
type Hash [20]byte

// ZeroHash is the all-zero id git uses for "no object", for example as the old
// value of a ref that must not exist yet.
var ZeroHash Hash

// ErrBadHash is returned by ParseHash for text that is not 40 hex digits.
var ErrBadHash = errors.New("not a 40-digit hex object id")

// ParseHash parses a full 40-digit hex object id.
func ParseHash(s string) (Hash, error) {
	var h Hash
	if len(s) != 40 {
		return h, fmt.Errorf("%q: %w", s, ErrBadHash)
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("%q: %w", s, ErrBadHash)
	}
	return h, nil
}

// String returns the 40-digit lowercase hex form.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// Short returns the first 12 hex digits, enough to be unique in practice and
// accepted wherever gitguard takes a checkpoint id.
func (h Hash) Short() string { return h.String()[:12] }

// IsZero reports whether h is ZeroHash.
func (h Hash) IsZero() bool { return h == ZeroHash }

// MarshalText encodes h as 40 hex digits; the zero hash, which records use
// for "no file here", encodes as 40 zeros as in git's own diffs.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText is the inverse of MarshalText.
func (h *Hash) UnmarshalText(b []byte) error {
	p, err := ParseHash(string(b))
	if err != nil {
		return err
	}
	*h = p
	return nil
}
