package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/config"
	"github.com/gitguard/gitguard/record"
)

// The global flags that set what new runs protect. They beat git config
// and HEAD's .gitguard.toml; a run keeps the settings it started with.
var (
	excludeFlag = &cli.StringSliceFlag{Name: "exclude",
		Usage: "never record untracked paths matching `GLOB` (doublestar; repeatable; adds to git config and .gitguard.toml)"}
	maxFileSizeFlag = &cli.StringFlag{Name: "max-file-size",
		Usage: "record files larger than `SIZE` by hash only (e.g. 64MiB, unlimited); beats git config and .gitguard.toml"}
)

// settingsFlags are the values of --exclude and --max-file-size.
type settingsFlags struct {
	exclude     []string
	maxFileSize int64
}

func (s *settingsFlags) parse(c *cli.Context) error {
	s.exclude = c.StringSlice("exclude")
	for _, g := range s.exclude {
		if g == "" {
			return usagef("--exclude needs a glob")
		}
	}
	if v := c.String("max-file-size"); v != "" {
		n, err := config.ParseSize(v)
		if err != nil {
			return usagef("--max-file-size: %v", err)
		}
		s.maxFileSize = n
	}
	return nil
}

// settingsLine renders a run's settings for show: the size limit, the
// exclude globs and where they came from.
func settingsLine(s *record.Settings) string {
	size := fmt.Sprintf("%d bytes", s.MaxFileSize)
	if s.MaxFileSize < 0 {
		size = "unlimited"
	}
	line := "max file size " + size
	if len(s.Exclude) > 0 {
		line += "; exclude " + strings.Join(s.Exclude, ", ")
	}
	if len(s.Sources) > 0 {
		line += " (from " + strings.Join(s.Sources, ", ") + ")"
	}
	return line
}

// configNotice says on stderr, in one line, that the work tree's
// .gitguard.toml is not what gitguard uses.
func configNotice(ctx context.Context, e *env, g *gitguard.Guard) {
	if msg := g.ConfigNotice(ctx); msg != "" && !e.quiet {
		fmt.Fprintf(e.stderr, "gitguard: note: %s\n", msg)
	}
}

// configHint says how to fix a bad setting, by where it was read.
func configHint(err error) string {
	var fe *config.FileError
	switch {
	case errors.As(err, &fe) && fe.File == config.SourceGitConfig:
		return fmt.Sprintf("fix it with 'git config %s VALUE' or remove it with 'git config --unset-all %s'; docs/CONFIG.md lists every key and the values it takes", fe.Key, fe.Key)
	case errors.As(err, &fe) && fe.File == config.SourceHEAD:
		return "fix that line of the file and commit it; docs/CONFIG.md lists every key and the values it takes"
	}
	return "fix that line of the file; docs/CONFIG.md lists every key and the values it takes"
}
