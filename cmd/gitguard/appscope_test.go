package main

import (
	"io"
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

// flagNames lists the names of c's flags and, recursively, its subcommands'.
func flagNames(path string, c *cli.Command) []string {
	var out []string
	for _, f := range c.Flags {
		for _, n := range f.Names() {
			out = append(out, path+" "+n)
		}
	}
	for _, s := range c.Subcommands {
		out = append(out, flagNames(path+" "+s.Name, s)...)
	}
	return out
}

// The app built for one command gives that command (and its subcommands)
// the same flags, global ones included, as the app built for all; every
// command is covered, whatever global flags come first.
func TestInvokedCommandKeepsItsFlags(t *testing.T) {
	e := func() *env {
		return &env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	}
	full := newApp(e())
	for _, c := range full.Commands {
		want := flagNames(c.Name, c)
		for _, args := range [][]string{{"gitguard", c.Name}, {"gitguard", "-C", "dir", "--json", c.Name, "x"}, {"gitguard", "help", c.Name}} {
			app := newAppFor(e(), args)
			got := invokedCommand(app, args)
			if c.Name == "completion" {
				if got != nil {
					t.Errorf("%v: completion lists every command's flags, yet only %q got the global ones", args, got.Name)
				}
			} else if got == nil || got.Name != c.Name {
				t.Fatalf("%v: invoked command %v, want %q", args, got, c.Name)
			}
			for _, d := range app.Commands {
				if d.Name == c.Name {
					if names := flagNames(d.Name, d); !slices.Equal(names, want) {
						t.Errorf("%v: flags %v, want %v", args, names, want)
					}
				}
			}
		}
	}
	for _, args := range [][]string{{"gitguard"}, {"gitguard", "--help"}, {"gitguard", "nosuch"}, {"gitguard", "-C", "dir", "--", "status"}} {
		if got := invokedCommand(full, args); got != nil {
			t.Errorf("%v: invoked command %q, want none (every command ready)", args, got.Name)
		}
	}
}
