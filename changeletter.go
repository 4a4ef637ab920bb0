package gitguard

import "github.com/gitguard/gitguard/record"

// ChangeLetter is the one-letter kind of c, as `git diff --name-status`
// prints it: A added, D deleted, T type changed (file and symlink) or mode
// only, M modified.
func ChangeLetter(c record.Change) string {
	switch {
	case !c.Before.Exists():
		return "A"
	case !c.After.Exists():
		return "D"
	case c.Before.Hash == c.After.Hash || (c.Before.Mode == record.ModeSymlink) != (c.After.Mode == record.ModeSymlink):
		return "T"
	}
	return "M"
}
