package main

import (
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// Every command and subcommand has a one-line usage, a usage synopsis and
// a description ending in its exit statuses, and names its arguments with
// the same placeholders: RUN, CALL, CKPT, GLOB, DIR, PATH.
func TestHelpIsComplete(t *testing.T) {
	app := newApp(&env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }})
	old := regexp.MustCompile(`\bCALL_ID\b|\bUNDO_ID\b|--run ID\b|--call ID\b`)
	var walk func(path string, cmds []*cli.Command)
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			name := strings.TrimSpace(path + " " + c.Name)
			if c.Usage == "" {
				t.Errorf("%s: no usage line", name)
			}
			if c.UsageText == "" || !strings.HasPrefix(c.UsageText, "gitguard "+name) {
				t.Errorf("%s: synopsis %q does not start with 'gitguard %s'", name, c.UsageText, name)
			}
			desc, _, _ := strings.Cut(c.Description, "EXIT STATUS")
			if strings.TrimSpace(desc) == "" {
				t.Errorf("%s: no description", name)
			}
			if !strings.Contains(c.Description, "EXIT STATUS\n   0   ok") {
				t.Errorf("%s: no exit statuses", name)
			}
			if m := old.FindString(c.UsageText + c.Description); m != "" {
				t.Errorf("%s: placeholder %q; use RUN, CALL, CKPT", name, m)
			}
			for _, f := range c.Flags {
				if df, ok := f.(cli.DocGenerationFlag); ok && df.GetUsage() == "" {
					t.Errorf("%s: flag %s has no usage", name, f.Names()[0])
				}
			}
			walk(name, c.Subcommands)
		}
	}
	walk("", app.Commands)
}
