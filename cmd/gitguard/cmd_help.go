package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// helpTopicArgs turns "gitguard help [CMD [SUB...]]" into
// "gitguard [CMD [SUB...]] --help", as git does for "git help CMD". (A
// command named help would make urfave/cli drop the -h flag.)
func helpTopicArgs(app *cli.App, args []string) []string {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return args
		}
		if strings.HasPrefix(a, "-") {
			i += flagArity(app.Flags, a) - 1
			continue
		}
		if a != "help" {
			return args
		}
		out := append([]string{}, args[:i]...)
		out = append(out, args[i+1:]...)
		return append(out, "--help")
	}
	return args
}
