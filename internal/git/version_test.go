package git

import "testing"

func TestVersionAtLeast(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"2.31.0", true}, {"2.31", true}, {"2.39.5", true}, {"2.45.1.windows.1", true}, {"3.0.0", true},
		{"2.30.9", false}, {"2.9.0", false}, {"1.99", false}, {"2.31.0-rc1", true}, {"2.30.0.rc2", false},
	} {
		if got := VersionAtLeast(tc.v, [3]int{2, 31, 0}); got != tc.want {
			t.Errorf("VersionAtLeast(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}
