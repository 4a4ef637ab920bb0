package record

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
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

// State is a path's content: a blob id and mode, or absent (mode 0).
type State struct {
	Mode Mode `json:"mode"`
	Hash Hash `json:"hash"`
}

// Exists reports whether the state is a present file.
func (s State) Exists() bool { return s.Mode != ModeNone }

// FileState is one path's state with its size, as a snapshot sees it. Files
// over the size limit are recorded this way only (by hash, size and mode).
type FileState struct {
	Path string `json:"path"`
	Mode Mode   `json:"mode"`
	Hash Hash   `json:"hash"`
	Size int64  `json:"size"`
}

// Exists reports whether the path holds something.
func (f FileState) Exists() bool { return f.Mode != ModeNone }

// State returns the path's content without its name and size.
func (f FileState) State() State { return State{Mode: f.Mode, Hash: f.Hash} }

// Skipped is a path a snapshot could not record, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Head is HEAD at checkpoint time.
type Head struct {
	Commit Hash   `json:"oid"`
	Ref    string `json:"ref,omitempty"` // empty when detached
}

// Change is one path whose state differs between two trees.
type Change struct {
	Path   string
	Before FileState
	After  FileState
}

// IsBinary applies git's rule: content with a NUL in its first 8000 bytes is binary.
func IsBinary(data []byte) bool {
	if len(data) > 8000 {
		data = data[:8000]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// BlobHash is the id git gives a blob with this content (git hash-object).
func BlobHash(data []byte) Hash {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	var out Hash
	h.Sum(out[:0])
	return out
}
