// Package hookserve lets a work tree's watch daemon record agent hook
// events, and starts that daemon: what `gitguard watch`, `gitguard run`
// and `gitguard hook AGENT` do, for any Go program that embeds gitguard.
//
// An agent hook is a short-lived process the agent starts before and after
// each tool use. Recording the event in it costs opening the repository
// every time; handing it to the work tree's watch daemon (HandOff), which
// records it in its running process (NewDaemon), costs little more than
// starting the process. The daemon answers with what the hook prints on
// stderr and the status it exits with.
//
// Invariants:
//   - The daemon records an event exactly as the hook's own process would:
//     through agent.Handle, opened with Options.Open. Whatever keeps it
//     from doing so (another work tree, another environment, an event
//     with a warning or unreadable) is refused with ErrRefused and the
//     hook records the event itself; an event recorded twice that way is
//     recognised as such, as a redelivered one is. A refusal records
//     nothing.
//   - A session's start and end are recorded too. Where the hook's process
//     would ask the daemon to stop (the run whose hook started it ended),
//     the daemon stops once it has answered; a session starting that ended
//     that run keeps it for its own run, where the hook's process would
//     stop it and start another.
//   - Events are recorded one at a time, in the order they arrive.
//   - The daemon merges gitguard's packs only once events pause, and Close
//     waits for a merge under way: the process never exits halfway through
//     writing a pack.
//   - The package reads no environment variables: what the daemon and the
//     hook need of the environment comes in as options (a getenv function).
//   - StartDaemon is the one place besides `gitguard run` that starts a
//     process: a detached `gitguard watch`, in a session of its own.
package hookserve
