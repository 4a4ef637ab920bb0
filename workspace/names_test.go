package workspace

import (
	"testing"

	"github.com/gitguard/gitguard/internal/git"
)

// These run on every platform: the macOS and Windows rules are string rules.

func TestPrecompose(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain.txt", "plain.txt"},
		{"A\u0308rger.txt", "\u00c4rger.txt"},      // NFD Ä, as macOS lists it
		{"\u00c4rger.txt", "\u00c4rger.txt"},       // already NFC
		{"cafe\u0301/", "caf\u00e9/"},              // e + combining acute
		{"\u1100\u1161", "\uac00"},                 // Hangul jamo compose
		{"bad\xffutf8\u0308", "bad\xffutf8\u0308"}, // not UTF-8: left alone
	}
	for _, tc := range tests {
		if got := precompose(tc.in); got != tc.want {
			t.Errorf("precompose(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNameRules(t *testing.T) {
	t.Parallel()
	nfd := "A\u0308.txt"
	cfg := func(kv ...string) git.Config {
		c := git.Config{}
		for i := 0; i+1 < len(kv); i += 2 {
			c[kv[i]] = []string{kv[i+1]}
		}
		return c
	}
	tests := []struct {
		name       string
		cfg        git.Config
		goos       string
		wantFold   bool
		wantOnDisk string
	}{
		{"linux keeps names as they are", cfg(), "linux", false, nfd},
		{"linux ignores precomposeUnicode", cfg("core.precomposeunicode", "true"), "linux", false, nfd},
		{"macOS composes by default", cfg("core.ignorecase", "true"), "darwin", true, "\u00c4.txt"},
		{"macOS with precomposeUnicode off", cfg("core.precomposeunicode", "false"), "darwin", false, nfd},
		{"windows folds case when git says so", cfg("core.ignorecase", "true"), "windows", true, nfd},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := nameRulesFor(tc.cfg, tc.goos)
			if r.ignoreCase != tc.wantFold {
				t.Errorf("ignoreCase = %v, want %v", r.ignoreCase, tc.wantFold)
			}
			if got := r.fromDisk(nfd); got != tc.wantOnDisk {
				t.Errorf("fromDisk(%q) = %q, want %q", nfd, got, tc.wantOnDisk)
			}
			if got := r.isDotGit(".GIT"); got != tc.wantFold {
				t.Errorf("isDotGit(.GIT) = %v, want %v", got, tc.wantFold)
			}
			if !r.isDotGit(".git") || r.isDotGit(".gitignore") {
				t.Error("isDotGit must match .git and only .git")
			}
		})
	}
}

func TestFoldCase(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"abc", "abc"},
		{"ReadMe.MD", "readme.md"},
		{"\u00c4RGER", "\u00c4rger"}, // only ASCII folds, as in git
		{"Dir/Sub/X", "dir/sub/x"},
	}
	for _, tc := range tests {
		if got := foldCase(tc.in); got != tc.want {
			t.Errorf("foldCase(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIgnoreFold(t *testing.T) {
	t.Parallel()
	rules := []byte("*.LOG\nBuild/\n/Top.txt\nsub/Deep.TXT\n")
	tests := []struct {
		path  string
		isDir bool
		fold  bool
		want  bool
	}{
		{"x.log", false, true, true},
		{"x.log", false, false, false},
		{"X.LOG", false, false, true},
		{"build", true, true, true},
		{"build", true, false, false},
		{"top.TXT", false, true, true},
		{"top.TXT", false, false, false},
		{"Sub/deep.txt", false, true, true},
		{"Sub/deep.txt", false, false, false},
	}
	for _, tc := range tests {
		var st *ignoreStack
		st = st.push(parseIgnore(rules, "", tc.fold))
		name := tc.path
		if i := len(name) - 1; i >= 0 {
			for j := i; j >= 0; j-- {
				if name[j] == '/' {
					name = name[j+1:]
					break
				}
			}
		}
		if got := st.ignored(tc.path, name, tc.isDir); got != tc.want {
			t.Errorf("fold=%v: ignored(%q) = %v, want %v", tc.fold, tc.path, got, tc.want)
		}
	}
}
