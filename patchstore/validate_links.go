package patchstore

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gitguard/gitguard/record"
)

// checkCallLinks refuses a call's records in which, at one moment, a path exists
// beneath another that is a symlink or a submodule (a -> .git together
// with a/hooks/pre-commit), which no work tree can hold and git refuses to
// check out: undo would create the link and then write through it, outside
// the work tree or into .git. The moments are a call's start (the before
// state of each of its patches and captured paths) and its finish (each
// after state). A folder replaced by a symlink within a call is fine: a/x
// exists before and a after. The cost is linear in the records read, so it
// covers exactly what a command then acts on (every call is checked as
// its records are read). Undo also checks the states
// it is about to write, which come from several calls (see the root's
// link checks).
func checkCallLinks(id record.CallID, c *Call) error {
	before := map[string]record.State{}
	after := map[string]record.State{}
	for i := range c.Patches {
		before[c.Patches[i].Path] = c.Patches[i].Before()
		after[c.Patches[i].Path] = c.Patches[i].After()
	}
	for _, b := range c.Before {
		before[b.Path] = b.State
	}
	others := map[string]record.State{}
	for i := range c.Others {
		others[c.Others[i].Path] = c.Others[i].After()
	}
	for _, set := range []struct {
		what   string
		states map[string]record.State
	}{{"before", before}, {"after", after}, {"others", others}} {
		if p, link := LinkedPath(set.states); p != "" {
			return fmt.Errorf("%w: calls/%s: its %s states hold %s beneath %s, a symlink or submodule at the same time",
				record.ErrCorrupt, id, set.what, record.Quoted(p), record.Quoted(link))
		}
	}
	return nil
}

// LinkedPath returns a path that exists in states beneath another that is a
// symlink or a submodule in states, and that one; "" when there is none.
func LinkedPath(states map[string]record.State) (path, link string) {
	links := map[string]bool{}
	for p, st := range states {
		if st.Mode == record.ModeSymlink || st.Mode == record.ModeGitlink {
			links[p] = true
		}
	}
	if len(links) == 0 {
		return "", ""
	}
	paths := make([]string, 0, len(states))
	for p, st := range states {
		if st.Exists() {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		for j := strings.IndexByte(p, '/'); j >= 0; {
			if links[p[:j]] {
				return p, p[:j]
			}
			k := strings.IndexByte(p[j+1:], '/')
			if k < 0 {
				break
			}
			j += 1 + k
		}
	}
	return "", ""
}
