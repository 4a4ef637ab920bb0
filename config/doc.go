// Package config parses gitguard's settings (see docs/CONFIG.md): a
// .gitguard.toml's content (Parse), the gitguard.* keys of git's configuration
// (FromGitConfig), and their combination by precedence (Merge). Which
// places are read is the caller's choice; gitguard reads HEAD's committed
// file, never the work tree's, so that a guarded agent cannot loosen its
// own guard.
//
// Invariants: an absent file is the zero Config, never an error; every
// problem — a syntax error, an unknown key, a value of the wrong type or out
// of range — is a *FileError naming the file, the line and the key, wrapping
// ErrInvalid, and nothing of a bad file is used. The package reads no file
// itself.
package config
