package config

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// FileName is the name of the configuration file at the top of the work tree.
const FileName = ".gitguard.toml"

// MaxFileBytes bounds the configuration file; anything larger is refused.
const MaxFileBytes = 1 << 20

// ErrInvalid is wrapped by every error about the content of a configuration file.
var ErrInvalid = errors.New("invalid configuration")

// FileError is a problem at one place of a configuration file.
type FileError struct {
	File string // as given to Load, joined with FileName
	Line int    // 1-based; 0 when the problem has no line
	Key  string // dotted key, e.g. "retention.keep"; empty for syntax errors
	Msg  string
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		fmt.Fprintf(&b, "%s: ", e.Key)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *FileError) Unwrap() error { return ErrInvalid }

// Config is the content of .gitguard.toml. The zero value means "no file":
// every setting at its default.
type Config struct {
	// Path is the file that was read; empty when there was none.
	Path string
	// Exclude holds doublestar globs of paths never snapshotted.
	Exclude []string
	// MaxFileSize is the snapshot size limit in bytes: 0 when unset,
	// negative for no limit.
	MaxFileSize int64
	// Retention holds the defaults of 'gitguard prune'.
	Retention Retention
	// Sources names the places a merged configuration came from (see
	// Merge); empty for a single file.
	Sources []string
}

// Retention is the [retention] table: what prune keeps when run without flags.
type Retention struct {
	// Keep is how many most recently active runs to keep; nil when unset.
	Keep *int
	// OlderThan deletes runs whose last checkpoint is older; 0 when unset.
	OlderThan time.Duration
}

// IsZero reports whether no retention rule is configured.
func (r Retention) IsZero() bool { return r.Keep == nil && r.OlderThan == 0 }

// file mirrors the TOML document; the string fields are parsed afterwards so
// that a bad value is reported with its line.
type file struct {
	Exclude     []string `toml:"exclude"`
	MaxFileSize *string  `toml:"max_file_size"`
	Retention   struct {
		Keep      *int64  `toml:"keep"`
		OlderThan *string `toml:"older_than"`
	} `toml:"retention"`
}

// knownKeys lists every key and what it takes, for messages.
var knownKeys = map[string]string{
	"exclude":              `a list of doublestar globs, e.g. ["node_modules/**"]`,
	"max_file_size":        `a size string, e.g. "64MiB", "500KB", "1048576" or "unlimited"`,
	"retention":            "a table",
	"retention.keep":       "a whole number of runs, 0 or more",
	"retention.older_than": `a duration string, e.g. "720h", "30d" or "2w"`,
}

// Parse parses the content of a configuration file; name is used in errors.
func Parse(name string, data []byte) (*Config, error) {
	var raw file
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, decodeError(name, err)
	}
	cfg := &Config{Path: name, Exclude: raw.Exclude}
	bad := func(key, format string, args ...any) error {
		return &FileError{File: name, Line: keyLine(data, key), Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	for _, g := range raw.Exclude {
		if g == "" || !doublestar.ValidatePattern(g) {
			return nil, bad("exclude", "%q is not a valid doublestar glob; want %s", g, knownKeys["exclude"])
		}
	}
	if raw.MaxFileSize != nil {
		n, err := ParseSize(*raw.MaxFileSize)
		if err != nil {
			return nil, bad("max_file_size", "%v; want %s", err, knownKeys["max_file_size"])
		}
		cfg.MaxFileSize = n
	}
	if k := raw.Retention.Keep; k != nil {
		if *k < 0 || *k > 1<<30 {
			return nil, bad("retention.keep", "%d is out of range; want %s", *k, knownKeys["retention.keep"])
		}
		v := int(*k)
		cfg.Retention.Keep = &v
	}
	if o := raw.Retention.OlderThan; o != nil {
		d, err := ParseAge(*o)
		if err != nil {
			return nil, bad("retention.older_than", "%v; want %s", err, knownKeys["retention.older_than"])
		}
		cfg.Retention.OlderThan = d
	}
	return cfg, nil
}

func decodeError(name string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		e := strict.Errors[0]
		line, _ := e.Position()
		key := strings.Join(e.Key(), ".")
		return &FileError{File: name, Line: line, Key: key, Msg: "unknown key; known keys are exclude, max_file_size, [retention] keep and older_than"}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		key := strings.Join(de.Key(), ".")
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if want, ok := knownKeys[key]; ok {
			msg = "wrong type of value; want " + want
		}
		return &FileError{File: name, Line: line, Key: key, Msg: msg}
	}
	return &FileError{File: name, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
}

// keyLine returns the line where the dotted key is set, or 0.
func keyLine(data []byte, key string) int {
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			table = keyParts(e.Key())
		case unstable.KeyValue:
			it := e.Key()
			var first *unstable.Node
			var parts []string
			for it.Next() {
				n := it.Node()
				if first == nil {
					first = n
				}
				parts = append(parts, string(n.Data))
			}
			full := strings.Join(append(append([]string{}, table...), parts...), ".")
			if full == key && first != nil {
				return p.Shape(first.Raw).Start.Line
			}
		}
	}
	return 0
}

func keyParts(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

// ParseSize parses a byte size: a whole number of bytes, optionally with a
// unit (B, KB, MB, GB, TB in powers of 1000; KiB, MiB, GiB, TiB in powers of
// 1024; case-insensitive), or "unlimited" (returned as -1).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "unlimited") {
		return -1, nil
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("size %q does not start with a number", s)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	mult := map[string]int64{
		"": 1, "b": 1,
		"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
		"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
	}
	unit := strings.ToLower(strings.TrimSpace(t[i:]))
	m, ok := mult[unit]
	if !ok {
		return 0, fmt.Errorf("size %q has an unknown unit %q", s, t[i:])
	}
	if n > (1<<62)/m {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	if n == 0 {
		return 0, fmt.Errorf("size %q is zero (use \"unlimited\" for no limit)", s)
	}
	return n * m, nil
}

// ParseAge parses a duration as time.ParseDuration does ("720h", "90m"),
// also accepting whole days and weeks ("30d", "2w"). It must be positive.
func ParseAge(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	var d time.Duration
	var err error
	if n, unit := strings.TrimRight(t, "dw"), strings.TrimLeft(t, "0123456789"); n != t && (unit == "d" || unit == "w") {
		var v int64
		v, err = strconv.ParseInt(n, 10, 64)
		day := 24 * time.Hour
		if unit == "w" {
			day *= 7
		}
		if err == nil && v > int64((1<<62)/day) {
			err = errors.New("too large")
		}
		d = time.Duration(v) * day
	} else {
		d, err = time.ParseDuration(t)
	}
	if err != nil {
		return 0, fmt.Errorf("duration %q: want a number and a unit (h, m, s, d or w)", s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("duration %q is not positive", s)
	}
	return d, nil
}
