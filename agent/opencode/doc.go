// Package opencode is gitguard's adapter for opencode. opencode has no
// command hooks; it has plugins. "gitguard init opencode --write" writes a
// small plugin (.opencode/plugin/gitguard.js) that runs "gitguard hook
// opencode" with one JSON event on stdin on tool.execute.before,
// tool.execute.after, session.idle and session.deleted; this package reads
// those events.
//
// A session is run oc-<sessionID>; a tool use is a call named after its
// callID. write, edit and multiedit capture the one file they name; patch
// and apply_patch the files their patch names; bash the whole workspace.
// session.idle (the end of a turn) and session.deleted finish the run. A
// tool use whose tool.execute.after never came is finished, by the plugin at
// session.idle, as uncertain.
package opencode
