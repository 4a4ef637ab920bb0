package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// The places settings come from, highest precedence first. The work
// tree's .gitguard.toml is not among them: the agent a run guards edits
// the work tree, and must not be able to loosen its own guard. An edit of
// the file is recorded like any other and counts once it is committed.
const (
	SourceFlags     = "flags"
	SourceGitConfig = "git config"
	SourceHEAD      = "HEAD:" + FileName
	SourceDefaults  = "defaults"
)

// The git configuration keys gitguard reads (repository, user or system
// configuration; never the work tree). GitExclude may be given several
// times.
const (
	GitExclude            = "gitguard.exclude"
	GitMaxFileSize        = "gitguard.maxFileSize"
	GitRetentionKeep      = "gitguard.retentionKeep"
	GitRetentionOlderThan = "gitguard.retentionOlderThan"
)

// Layer is the configuration one source gives.
type Layer struct {
	Source string
	Config *Config // nil: the source says nothing
}

// FromGitConfig reads the gitguard.* keys of git's configuration; get
// returns every value of a key, in the order git lists them (nil when
// unset). A bad value is a *FileError naming the key, wrapping ErrInvalid.
func FromGitConfig(get func(key string) []string) (*Config, error) {
	cfg := &Config{}
	bad := func(key, format string, args ...any) error {
		return &FileError{File: SourceGitConfig, Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	last := func(key string) (string, bool) {
		v := get(key)
		if len(v) == 0 {
			return "", false
		}
		return v[len(v)-1], true
	}
	for _, g := range get(GitExclude) {
		if g == "" || !doublestar.ValidatePattern(g) {
			return nil, bad(GitExclude, "%q is not a valid doublestar glob; want one glob per value, e.g. node_modules/**", g)
		}
		cfg.Exclude = append(cfg.Exclude, g)
	}
	if v, ok := last(GitMaxFileSize); ok {
		n, err := ParseSize(v)
		if err != nil {
			return nil, bad(GitMaxFileSize, "%v; want %s", err, knownKeys["max_file_size"])
		}
		cfg.MaxFileSize = n
	}
	if v, ok := last(GitRetentionKeep); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 || n > 1<<30 {
			return nil, bad(GitRetentionKeep, "%q: want %s", v, knownKeys["retention.keep"])
		}
		cfg.Retention.Keep = &n
	}
	if v, ok := last(GitRetentionOlderThan); ok {
		d, err := ParseAge(v)
		if err != nil {
			return nil, bad(GitRetentionOlderThan, "%v; want %s", err, knownKeys["retention.older_than"])
		}
		cfg.Retention.OlderThan = d
	}
	if len(cfg.Exclude) > 0 || cfg.MaxFileSize != 0 || !cfg.Retention.IsZero() {
		cfg.Path = SourceGitConfig
	}
	return cfg, nil
}

// Merge combines layers given highest precedence first: the size limit
// and each retention key come from the first layer that sets them;
// exclude globs add up (a path any source excludes is excluded). Sources
// lists the layers that set something, in the order given; Path names
// them joined by ", ".
func Merge(layers ...Layer) *Config {
	out := &Config{}
	for _, l := range layers {
		c := l.Config
		if c == nil {
			continue
		}
		used := false
		if len(c.Exclude) > 0 {
			out.Exclude = append(out.Exclude, c.Exclude...)
			used = true
		}
		if out.MaxFileSize == 0 && c.MaxFileSize != 0 {
			out.MaxFileSize, used = c.MaxFileSize, true
		}
		if out.Retention.Keep == nil && c.Retention.Keep != nil {
			out.Retention.Keep, used = c.Retention.Keep, true
		}
		if out.Retention.OlderThan == 0 && c.Retention.OlderThan != 0 {
			out.Retention.OlderThan, used = c.Retention.OlderThan, true
		}
		if used {
			out.Sources = append(out.Sources, l.Source)
		}
	}
	out.Path = strings.Join(out.Sources, ", ")
	return out
}
