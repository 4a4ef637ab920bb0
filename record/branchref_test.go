package record

import "testing"

func TestValidateBranchRef(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ref string
		ok  bool
	}{
		{"", true},
		{"refs/heads/main", true},
		{"refs/heads/agent-feature", true},
		{"refs/heads/feat/ünï", true},
		{"refs/heads/it's$", true}, // legal in git: quoted when printed
		{"refs/tags/v1", true},
		{"main", false},
		{"refs/heads/", false},
		{"refs/heads/a b", false},
		{"refs/heads/a\nb", false},
		{"refs/heads/a..b", false},
		{"refs/heads/a~1", false},
		{"refs/heads/-x", false},
		{"refs/heads/x.lock", false},
		{"refs/heads/x@{1}", false},
	} {
		if err := ValidateBranchRef(tc.ref); (err == nil) != tc.ok {
			t.Errorf("ValidateBranchRef(%q) = %v, want ok %v", tc.ref, err, tc.ok)
		}
	}
}
