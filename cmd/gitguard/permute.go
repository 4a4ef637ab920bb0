package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// permuteArgs moves flags that follow positional arguments in front of
// them, so that "gitguard call start ID --tool T -- PATH" parses as users
// write it; urfave/cli (like Go's flag package) stops at the first
// positional argument. Everything after "--" is left untouched, so
// "gitguard run -- aider --model x" passes its flags to the command.
//
// A flag that takes a value must have one: "--tool" last, or followed by
// "--", is a usage error rather than a flag whose value is the next word.
func permuteArgs(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	out := []string{args[0]}
	rest := args[1:]
	// Global flags, then the command path.
	flags := app.Flags
	var cmds = app.Commands
	var cmd *cli.Command
	for len(rest) > 0 {
		a := rest[0]
		if a == "--" {
			return append(out, rest...), nil
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			n := flagArity(flags, a)
			if err := hasValue(rest, 0, n); err != nil {
				return nil, err
			}
			out = append(out, rest[:n]...)
			rest = rest[n:]
			continue
		}
		next := findCommand(cmds, a)
		if next == nil {
			break
		}
		cmd = next
		out = append(out, a)
		rest = rest[1:]
		flags, cmds = cmd.Flags, cmd.Subcommands
		if len(cmds) == 0 {
			break
		}
	}
	if cmd == nil || cmd.SkipFlagParsing {
		return append(out, rest...), nil
	}
	if stopsAtCommand[cmd.Name] {
		// "gitguard run aider --model x": everything from the first
		// positional argument on belongs to the wrapped command.
		for i := 0; i < len(rest); i++ {
			a := rest[i]
			if a == "--" {
				return append(out, rest...), nil
			}
			if !strings.HasPrefix(a, "-") || a == "-" {
				out = append(out, rest[:i]...)
				out = append(out, "--")
				return append(out, rest[i:]...), nil
			}
			n := flagArity(flags, a)
			if err := hasValue(rest, i, n); err != nil {
				return nil, err
			}
			i += n - 1
		}
		return append(out, rest...), nil
	}
	var fl, pos, tail []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			tail = rest[i+1:]
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			n := flagArity(flags, a)
			if err := hasValue(rest, i, n); err != nil {
				return nil, err
			}
			fl = append(fl, rest[i:i+n]...)
			i += n - 1
			continue
		}
		pos = append(pos, a)
	}
	out = append(out, fl...)
	if len(pos) == 0 && tail == nil {
		return out, nil
	}
	out = append(out, "--")
	out = append(out, pos...)
	return append(out, tail...), nil
}

// hasValue checks that the flag at args[i], which takes n arguments, has
// its value: a missing one, or "--" in its place, is a usage error.
func hasValue(args []string, i, n int) error {
	if n < 2 {
		return nil
	}
	if i+1 >= len(args) || args[i+1] == "--" {
		return usagef("flag %s needs a value", args[i])
	}
	return nil
}

// flagArity returns how many arguments the flag token a consumes: 1 for a
// boolean or a "--name=value" form, 2 for a flag that takes a value.
func flagArity(flags []cli.Flag, a string) int {
	name := strings.TrimLeft(a, "-")
	if strings.Contains(name, "=") {
		return 1
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n != name {
				continue
			}
			if _, ok := f.(*cli.BoolFlag); ok {
				return 1
			}
			return 2
		}
	}
	if name == "help" || name == "h" {
		return 1
	}
	return 1
}

// stopsAtCommand names commands whose arguments after the first
// positional one are another program's command line.
var stopsAtCommand = map[string]bool{"run": true}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name {
			return c
		}
		for _, a := range c.Aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}
