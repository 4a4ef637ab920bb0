package odb

import (
	"strings"
	"testing"
)

func TestCompareTreeOrderMatchesKeys(t *testing.T) {
	names := []string{"a", "a-b", "a.txt", "a0", "ab", "b", "é", "a~", ""}
	modes := []Mode{ModeFile, ModeTree, ModeSymlink, ModeGitlink}
	for _, x := range names {
		for _, y := range names {
			for _, mx := range modes {
				for _, my := range modes {
					ex, ey := TreeEntry{Name: x, Mode: mx}, TreeEntry{Name: y, Mode: my}
					want := strings.Compare(treeKey(ex), treeKey(ey))
					if got := compareTreeOrder(ex, ey); got != want {
						t.Errorf("compareTreeOrder(%q %v, %q %v) = %d, want %d", x, mx, y, my, got, want)
					}
				}
			}
		}
	}
}
