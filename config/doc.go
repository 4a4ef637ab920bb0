// Package config reads a work tree's .gitguard.toml (see docs/CONFIG.md).
//
// Invariants: a missing file is the zero Config, never an error; every other
// problem — a syntax error, an unknown key, a value of the wrong type or out
// of range — is a *FileError naming the file, the line and the key, wrapping
// ErrInvalid, and nothing of a bad file is used. Load only reads.
package config
