package main

import (
	"encoding/json"

	"github.com/gitguard/gitguard/protocol"
)

// The documents that --json prints for the commands the JSON-lines
// protocol also serves are built by package protocol, once for both; the
// CLI-only documents (log, show, runs, check, compensate, ...) are built
// from the same parts.

// jsonVersion is the version of every JSON document the CLI prints.
const jsonVersion = protocol.DocVersion

// printJSON writes v as one indented JSON document on stdout.
func (e *env) printJSON(v any) error {
	e.printedJSON = true
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

type jsonError struct {
	Version  int    `json:"version"`
	Error    string `json:"error"`
	Hint     string `json:"hint,omitempty"`
	ExitCode int    `json:"exit_code"`
}

// nonNil makes a nil list print as [] rather than null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
