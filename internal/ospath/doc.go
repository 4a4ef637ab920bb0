// Package ospath handles the file names of the platforms gitguard runs on
// as plain strings, so that the rules of each platform are tested on every
// platform: drive letters, UNC and long-path prefixes and backslashes on
// Windows, case-insensitive comparison, names Windows cannot hold.
//
// It does no I/O. Repository paths are git's: slash-separated, relative to
// the top of the work tree.
//
// Invariants: no function touches the file system or reads the
// environment; every rule takes the Flavor it applies to, so Windows rules
// are the same code, and tested the same way, on every platform.
package ospath
