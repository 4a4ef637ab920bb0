// Command gitguard guards a git workspace while a coding agent edits it:
// checkpoints under refs/agent-checkpoints/, per-call patches, undo of the
// agent's edits only, and a ledger to resume from.
package main

import "os"

func main() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) }
