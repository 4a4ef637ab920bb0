//go:build !unix

package gitrefs

// lockFile takes no lock where flock(2) is missing: a stale ref lock is
// then never broken, as git never does.
func lockFile(string, bool) (release func(), ok bool) { return nil, false }
