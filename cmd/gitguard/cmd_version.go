package main

import (
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// commit is set at build time with -ldflags "-X main.commit=..."; without
// it, the commit comes from the build's version control information.
var commit = ""

// buildVersion returns the version and commit gitguard was built from:
// the stamped ones, else what the Go toolchain recorded (a module version
// for go install ...@v1.2.3, the commit for a build in a checkout).
func buildVersion() (ver, rev string) {
	ver, rev = version, commit
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ver, rev
	}
	if ver == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		ver = bi.Main.Version
	}
	if rev == "" {
		dirty := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" && dirty {
			rev += "-dirty"
		}
	}
	return ver, rev
}

// versionLine is what gitguard version and gitguard --version print.
func versionLine() string {
	ver, rev := buildVersion()
	s := "gitguard version " + ver
	if rev != "" {
		s += " (commit " + rev + ")"
	}
	return s + " " + runtime.GOOS + "/" + runtime.GOARCH
}

type jsonVersionDoc struct {
	Version int    `json:"version"`
	Build   string `json:"build"`
	Commit  string `json:"commit,omitempty"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

func newVersionCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:        "version",
		Usage:       "print the version and commit gitguard was built from",
		UsageText:   "gitguard version [--json]",
		Description: "Prints the version, the commit and the platform; --version prints the same.",
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			if wantJSON(c, e) {
				ver, rev := buildVersion()
				return e.printJSON(jsonVersionDoc{Version: jsonVersion, Build: ver, Commit: rev, OS: runtime.GOOS, Arch: runtime.GOARCH})
			}
			e.printf("%s\n", versionLine())
			return nil
		},
	}
}
