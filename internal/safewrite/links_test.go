package safewrite

import (
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
)

// TestLinkEscapes: a symlink undo may create stays inside the work tree
// and out of .git, however its target gets there — directly, through a
// link already on disk, or through another link the same undo creates.
func TestLinkEscapes(t *testing.T) {
	gittest.RequireGit(t)
	r := gittest.New(t)
	r.Write("dir/file.txt", "x\n")
	r.Commit("init")
	r.Symlink("..", "dir/up")    // on disk: dir/up -> .. (the top)
	r.Symlink("/etc", "abslink") // on disk: an absolute link
	w := &Writer{WorkTree: r.Dir}
	str := func(s string) *string { return &s }
	for _, c := range []struct {
		link, target string
		planned      map[string]*string
		bad          bool
	}{
		{link: "a", target: "dir/file.txt"},
		{link: "dir/a", target: "../dir/file.txt"},
		{link: "dir/a", target: "file.txt"},
		{link: "a", target: "missing/../dir"},
		{link: "a", target: "-dash"},
		{link: "a", target: ".git", bad: true},
		{link: "a", target: ".GIT/hooks", bad: true},
		{link: "a", target: "dir/../.git", bad: true},
		{link: "a", target: "git~1", bad: true},
		{link: "a", target: "/etc/passwd", bad: true},
		{link: "a", target: `C:\Windows`, bad: true},
		{link: "a", target: `..\..\x`, bad: true},
		{link: "a", target: "..", bad: true},
		{link: "dir/a", target: "../..", bad: true},
		{link: "a", target: "", bad: true},
		// Through a link on disk: dir/up is the top, so dir/up/.. leaves it.
		{link: "a", target: "dir/up/file", bad: false},
		{link: "a", target: "dir/up/..", bad: true},
		{link: "a", target: "dir/up/.git", bad: true},
		{link: "a", target: "abslink/x", bad: true},
		// Through links the same undo creates.
		{link: "l2", target: "l1/l1/..", planned: map[string]*string{"l1": str(".")}, bad: true},
		{link: "l2", target: "l1/x", planned: map[string]*string{"l1": str("dir")}},
		// A link on disk that the undo replaces by a file is no link.
		{link: "a", target: "dir/up/..", planned: map[string]*string{"dir/up": nil}, bad: false},
		// A loop is refused (too many links), as the system would refuse it.
		{link: "l1", target: "l2", planned: map[string]*string{"l1": str("l2"), "l2": str("l1")}, bad: true},
	} {
		why := w.linkEscapes(c.link, c.target, c.planned)
		if (why != "") != c.bad {
			t.Errorf("%s -> %q (planned %v): %q, want refused=%v", c.link, c.target, c.planned, why, c.bad)
		}
	}
}
