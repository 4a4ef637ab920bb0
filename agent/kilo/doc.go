// Package kilo is gitguard's adapter for Kilo CLI, which is built on
// opencode and loads the same plugins: "gitguard init kilo --write" writes
// the plugin of package opencode to .kilo/plugin/gitguard.js (Kilo CLI
// loads plugins from .kilo/ and the older .kilocode/, not from
// .opencode/), running "gitguard hook kilo"; the events are opencode's.
//
// A session is run kl-<sessionID>; a tool use is a call named after its
// callID. The tools are opencode's: write, edit and multiedit capture the
// one file they name, patch and apply_patch the files their patch names,
// bash and every tool gitguard does not know (an MCP server's) the whole
// workspace; read-only tools are answered by the plugin itself.
// session.idle finishes the run.
package kilo
