// Package protocol is gitguard's JSON-lines protocol (docs/PROTOCOL.md) and
// the JSON documents gitguard prints: the request and response shapes,
// Handle, which carries out one request through the root gitguard API,
// Server.Serve, which answers a stream of request lines, and the documents
// the ops return.
//
// Those documents are also what the CLI prints with --json, and both build
// them with the New…Doc functions here, so a command's --json output and
// the protocol's result for the op of the same name cannot drift apart.
//
// Invariants:
//   - Every request line gets exactly one response line, in the order the
//     requests came; an empty line gets none.
//   - A malformed or unknown request changes nothing in the repository and
//     is answered with exit code 2; the server goes on with the next line.
//   - Option checks are the root package's Validate methods, the ones the CLI
//     calls, so a bad option gets the same message from both.
//   - The package reaches the repository only through the root gitguard API
//     and the record types it returns; it writes nothing itself.
package protocol

// DocVersion is the "version" field of every JSON document.
const DocVersion = 1

// Version is the version of the request and response shapes.
const Version = 1
