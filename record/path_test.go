package record

import "testing"

func TestDotGitAlias(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"git~1", true},
		{"GIT~1", true},
		{".g\u200cit", true},       // HFS+ ignores ZERO WIDTH NON-JOINER
		{"\ufeff.GIT", true},       // and ZERO WIDTH NO-BREAK SPACE
		{".git\u200f. ", true},     // trailing dots and spaces too
		{".gi\u206at\u202e", true}, // several, from each range
		{".git", false},            // plain .git is badName's, not an alias
		{"git~2", false},
		{"a.go", false},
		{"gît", false},
		{".g\u200bit", false}, // ZERO WIDTH SPACE is not ignored
		{"\u200c", false},
	} {
		if got := DotGitAlias(c.name); got != c.want {
			t.Errorf("DotGitAlias(%q) = %v, want %v", c.name, got, c.want)
		}
		err := ValidateTreeName(c.name)
		if c.want && err == nil {
			t.Errorf("ValidateTreeName(%q) accepted another spelling of .git", c.name)
		}
	}
}
