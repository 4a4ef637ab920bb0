// Package odb reads and writes git objects in the repository's own object
// database, in process.
//
// Reading goes through go-git's storage, which understands packs, loose
// objects and alternates. Writing is done here, not by go-git, for two
// reasons: files are streamed (a 1 GiB file is never held in memory) while
// being hashed and compressed in one pass, and Sync makes what was written
// durable before a ref may point at it, which go-git never does. Objects are written to a
// temporary file and renamed into place, so a crash leaves at worst an unused
// temporary file, never a truncated object. An object that already exists is
// not written again.
package odb
