// Package odb reads and writes git objects in the repository's own object
// database, in process.
//
// Reading is done here for loose objects and for packs with version 2
// indexes (mapped, binary-searched, deltas resolved, ids checked), the
// repository's own and those of the object folders it borrows from
// (alternates.go), and by go-git's storage for the rest (other index
// versions, objects over 16 MiB). Writing is done here, not by go-git:
// files are streamed (a 1 GiB file is never held in memory) while being
// hashed and compressed in one pass, and Sync makes what was written
// durable before a ref may point at it, which go-git never does. Objects
// are written to a temporary file and renamed into place, so a crash
// leaves at worst an unused temporary file, never a truncated object. An
// object that already exists is not written again. Small objects written
// inside a batch (StartBatch) are stored together when it ends, as one
// pack when there are many.
//
// Git maintenance may run at any moment. An object a writer finds already
// stored and reuses is freshened as git does (freshen.go), and the objects
// a new checkpoint names can be checked after its ref moved and written
// back from memory if a racing prune deleted them (restore.go, Ensure).
package odb
