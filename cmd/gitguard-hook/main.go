// Command gitguard-hook is the agent hook at its cheapest: it hands a
// session's events to the work tree's watch daemon, which records them, and runs
// `gitguard hook AGENT` for everything else, with the same messages and
// exit status (see package hookclient).
//
//	gitguard-hook AGENT [--fail-closed] [--workspace-tool NAME]... [--no-watch] [--watch-idle DURATION] < EVENT.json
//
// On Linux, where the watch daemon runs, `gitguard init AGENT` installs it
// as the hook when it sits beside gitguard, as `go install ./cmd/...` puts
// it.
package main

import (
	"context"
	"os"

	"github.com/gitguard/gitguard/internal/hookclient"
)

func main() {
	os.Exit(hookclient.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
