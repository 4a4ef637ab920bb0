package ospath

import (
	"errors"
	"testing"
)

// These run on every platform: the Windows rules are string rules.

func TestRel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f       Flavor
		top, p  string
		want    string
		wantOK  bool
		comment string
	}{
		{Unix, "/w/repo", "/w/repo/a/b.txt", "a/b.txt", true, "below"},
		{Unix, "/w/repo", "/w/repo", "", true, "the top itself"},
		{Unix, "/w/repo", "/w/repo2/a", "", false, "a sibling with a common prefix"},
		{Unix, "/w/repo", "/w/repo/../x", "", false, "dot-dot out"},
		{Unix, "/w/repo", "/w/repo/a/../b", "b", true, "dot-dot within"},
		{Unix, "/w/repo", "/W/REPO/a", "", false, "case matters on Unix"},
		{Unix, "/w/repo", `/w/repo/a\b`, `a\b`, true, "a backslash is a name byte on Unix"},
		{Windows, `C:\w\repo`, `C:\w\repo\src\main.go`, "src/main.go", true, "backslashes"},
		{Windows, `C:\w\repo`, `C:/w/repo/src/main.go`, "src/main.go", true, "forward slashes"},
		{Windows, `C:\w\repo`, `c:\W\Repo\src\Main.go`, "src/Main.go", true, "drive letter and names in another case"},
		{Windows, `C:\w\repo`, `D:\w\repo\src`, "", false, "another drive"},
		{Windows, `C:\w\repo`, `C:\w\repo2\src`, "", false, "a sibling with a common prefix"},
		{Windows, `C:\w\repo`, `C:\w\repo\..\x`, "", false, "dot-dot out"},
		{Windows, `C:\w\repo`, `\\?\C:\w\repo\deep\path`, "deep/path", true, "long-path prefix"},
		{Windows, `\\srv\share\repo`, `\\SRV\share\repo\a`, "a", true, "UNC share"},
		{Windows, `\\srv\share\repo`, `\\?\UNC\srv\share\repo\a`, "a", true, "long UNC prefix"},
		{Windows, `\\srv\share\repo`, `\\srv\other\repo\a`, "", false, "another share"},
		{Windows, `C:\w\repo`, `\w\repo\a`, "", false, "no drive is not C:"},
	}
	for _, tc := range tests {
		t.Run(tc.comment, func(t *testing.T) {
			got, ok := tc.f.Rel(tc.top, tc.p)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("Rel(%q, %q) = %q, %v; want %q, %v", tc.top, tc.p, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestCheckName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p      string
		winBad bool
	}{
		{"src/main.go", false},
		{"a b/c d.txt", false},
		{"Straße/naïve.txt", false},
		{".gitignore", false},
		{"C:/x.txt", true},
		{"c:x.txt", true},
		{"a.txt:stream", true},
		{`a\b.txt`, true},
		{"a/CON", true},
		{"con.txt", true},
		{"Nul", true},
		{"aux.tar.gz", true},
		{"COM1", true},
		{"lpt9.log", true},
		{"COM0", false},
		{"console.txt", false},
		{"trailing./x", true},
		{"x/trailing ", true},
		{"what?.txt", true},
		{"pipe|name", true},
		{"tab\tname", true},
		{`quote"name`, true},
	}
	for _, tc := range tests {
		t.Run(tc.p, func(t *testing.T) {
			if err := Unix.CheckName(tc.p); err != nil {
				t.Errorf("Unix.CheckName(%q) = %v, want nil", tc.p, err)
			}
			err := Windows.CheckName(tc.p)
			if tc.winBad != (err != nil) {
				t.Errorf("Windows.CheckName(%q) = %v, want bad=%v", tc.p, err, tc.winBad)
			}
			if err != nil && !errors.Is(err, ErrUnwritable) {
				t.Errorf("Windows.CheckName(%q) = %v, not ErrUnwritable", tc.p, err)
			}
		})
	}
}

func TestFlavorOf(t *testing.T) {
	t.Parallel()
	for goos, want := range map[string]Flavor{"windows": Windows, "darwin": Unix, "linux": Unix} {
		if got := FlavorOf(goos); got != want {
			t.Errorf("FlavorOf(%q) = %v, want %v", goos, got, want)
		}
	}
}
