package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
)

// ignoreCase is one .gitignore (plus optional nested ones) and the paths to
// check against it; a path ending in "/" is created as a folder.
type ignoreCase struct {
	gitignore string
	nested    map[string]string // folder → its .gitignore
	exclude   string            // .git/info/exclude
	paths     []string
}

var ignoreCases = []ignoreCase{
	{gitignore: "*.o\n", paths: []string{"a.o", "d/a.o", "a.oo", "o", ".o"}},
	{gitignore: "/top\n", paths: []string{"top", "d/top"}},
	{gitignore: "dir/\n", paths: []string{"dir/", "x/dir/", "x/dir/f", "dirx/"}},
	{gitignore: "dir/\n", paths: []string{"dir"}}, // a file: dir-only patterns skip it
	{gitignore: "**/foo\n", paths: []string{"foo", "a/b/foo", "a/foox"}},
	{gitignore: "foo/**\n", paths: []string{"foo/x", "foo/a/b", "foo/"}},
	{gitignore: "a/**/b\n", paths: []string{"a/b", "a/x/b", "a/x/y/b", "ab", "x/a/b"}},
	{gitignore: "a**b\n", paths: []string{"axxb", "ab", "c/ab", "a/b"}},
	{gitignore: "d/**/*.c\n", paths: []string{"d/x.c", "d/e/f/x.c", "x.c"}},
	{gitignore: "d/*.c\n", paths: []string{"d/x.c", "d/e/x.c"}},
	{gitignore: "*.log\n!keep.log\n", paths: []string{"x.log", "keep.log", "d/keep.log"}},
	{gitignore: "!keep.log\n*.log\n", paths: []string{"keep.log"}},
	{gitignore: "out/\n!out/keep\n", paths: []string{"out/keep", "out/other"}},
	{gitignore: "out/*\n!out/keep\n", paths: []string{"out/keep", "out/other"}},
	{gitignore: "out\n!out/keep\n", paths: []string{"out/keep"}},
	{gitignore: "\\!important\n", paths: []string{"!important", "important"}},
	{gitignore: "\\#hash\n#comment\n", paths: []string{"#hash", "#comment"}},
	{gitignore: "[!a]x\n", paths: []string{"bx", "ax", "x"}},
	{gitignore: "[^a]x\n", paths: []string{"bx", "ax"}},
	{gitignore: "[a-c]z\n", paths: []string{"bz", "dz", "-z"}},
	{gitignore: "[[:digit:]]n\n", paths: []string{"5n", "xn"}},
	{gitignore: "[[:alpha:]][[:upper:]][[:lower:]]\n", paths: []string{"aBc", "abc", "1Bc"}},
	{gitignore: "x[[:xdigit:]][[:alnum:]][[:punct:]]\n", paths: []string{"xf0!", "xg0!", "xf0a"}},
	{gitignore: "[[:space:]]s\n[[:blank:]]b\n", paths: []string{" s", "\ts", "\vs", "\fs", " b", "\vb"}},
	{gitignore: "[[:cntrl:]]c\n[[:graph:]]g\n[[:print:]]p\n", paths: []string{"\x01c", "~g", " g", " p"}},
	{gitignore: "[[:nope:]]x\n", paths: []string{"ax", "[[:nope:]]x"}},
	{gitignore: "[[:digit]x\n", paths: []string{"[x", ":x", "dx", "]x"}},
	{gitignore: "trail   \n", paths: []string{"trail", "trail   "}},
	{gitignore: "trail\\ \n", paths: []string{"trail ", "trail"}},
	{gitignore: "two\\  \n", paths: []string{"two ", "two  "}},
	{gitignore: "bs\\\\ \n", paths: []string{"bs\\", "bs\\ "}},
	{gitignore: "{a,b}\n", paths: []string{"{a,b}", "a", "b"}},
	{gitignore: "a?c\n", paths: []string{"abc", "ac", "d/abc"}},
	{gitignore: "d?x\n", paths: []string{"dax"}},
	{gitignore: "d/?x\n", paths: []string{"d/ax", "d/x"}},
	{gitignore: "foo//\n", paths: []string{"foo/", "foo"}},
	{gitignore: "//foo\n", paths: []string{"foo"}},
	{gitignore: "/a/*\n", paths: []string{"a/b", "a/b/c", "a/b/"}},
	{gitignore: "*\n!*/\n!*.go\n", paths: []string{"x.go", "d/x.go", "d/x.txt", "x.txt"}},
	{gitignore: "\\*\n", paths: []string{"*", "x"}},
	{gitignore: "[]]\n[]a]x\n[a-]y\n", paths: []string{"]", "ax", "]x", "-y", "ay", "by"}},
	{gitignore: "[\\]]z\n[a\\-c]w\n", paths: []string{"]z", "-w", "bw"}},
	{gitignore: "[\n[ab\n", paths: []string{"[", "[ab", "a"}},
	{gitignore: "foo\\\n", paths: []string{"foo", "foo\\"}},
	{gitignore: "\\ lead\n", paths: []string{" lead"}},
	{gitignore: "foo bar\n", paths: []string{"foo bar", "foo"}},
	{gitignore: "**\n", paths: []string{"x", "d/y"}},
	{gitignore: "a/**\n", paths: []string{"a/", "a/x"}},
	{gitignore: "***\n", paths: []string{"x", "d/y"}},
	{gitignore: "a/***/b\n", paths: []string{"a/b", "a/x/y/b"}},
	{gitignore: "a/**b\n", paths: []string{"a/xb", "a/x/b", "a/b"}},
	{gitignore: "crlf\r\n", paths: []string{"crlf", "crlf\r"}},
	{gitignore: "*.[oa]\n", paths: []string{"x.o", "x.a", "x.c"}},
	{gitignore: "é*\n", paths: []string{"école", "ecole"}},
	{gitignore: "\xef\xbb\xbfbom\n", paths: []string{"bom"}},
	{gitignore: "-dash\n", paths: []string{"-dash"}},
	{gitignore: "sub/x\n", paths: []string{"sub/x", "a/sub/x"}},
	{gitignore: "*/x\n", paths: []string{"a/x", "a/b/x", "x"}},
	{gitignore: "!\n/\n", paths: []string{"x"}},
	{gitignore: "*.x\n", nested: map[string]string{"sub": "!a.x\n"}, paths: []string{"sub/a.x", "sub/b.x", "a.x"}},
	{gitignore: "!sub/a.x\n", nested: map[string]string{"sub": "*.x\n"}, paths: []string{"sub/a.x"}},
	{gitignore: "", nested: map[string]string{"sub": "/a\nb/\n"}, paths: []string{"sub/a", "a", "sub/c/a", "sub/b/", "sub/c/b/"}},
	{gitignore: "", nested: map[string]string{"sub": "x/y\n"}, paths: []string{"sub/x/y", "x/y", "sub/z/x/y"}},
	{gitignore: "sub/\n", nested: map[string]string{"sub": "!keep\n"}, paths: []string{"sub/keep"}},
	{gitignore: "!*.x\n", exclude: "*.x\n", paths: []string{"a.x"}},
	{gitignore: "", exclude: "*.x\n", nested: map[string]string{"d": "!*.x\n"}, paths: []string{"a.x", "d/a.x"}},
}

// TestIgnoreMatchesGit compares the matcher with `git check-ignore` on a
// table of patterns and paths. The paths exist on disk, so git sees which
// are folders, as it does in a real walk.
func TestIgnoreMatchesGit(t *testing.T) {
	n := 0
	for _, tc := range ignoreCases {
		for _, p := range tc.paths {
			n++
			name := strings.TrimSpace(tc.gitignore) + " | " + p
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				r := gittest.New(t)
				if tc.gitignore != "" {
					r.Write(".gitignore", tc.gitignore)
				}
				for dir, content := range tc.nested {
					r.Write(dir+"/.gitignore", content)
				}
				if tc.exclude != "" {
					r.Write(".git/info/exclude", tc.exclude)
				}
				rel := strings.TrimSuffix(p, "/")
				isDir := rel != p
				if isDir {
					if err := os.MkdirAll(filepath.Join(r.Dir, rel), 0o755); err != nil {
						t.Fatal(err)
					}
				} else {
					r.Write(rel, "x")
				}
				// "./": a leading ':' would be pathspec magic, and
				// check-ignore refuses --literal-pathspecs.
				_, err := git.Run(context.Background(), r.Dir, "check-ignore", "--no-index", "-q", "--", "./"+rel)
				if err != nil && git.ExitCode(err) != 1 {
					t.Fatal(err)
				}
				want := err == nil
				if got := ignoredOnDisk(t, r.Dir, rel, isDir); got != want {
					t.Errorf("ignored(%q) with .gitignore %q = %v, git check-ignore says %v", p, tc.gitignore, got, want)
				}
			})
		}
	}
	if n < 60 {
		t.Errorf("only %d pattern × path cases", n)
	}
}

// ignoredOnDisk decides whether rel is ignored the way the snapshot walk
// does: down from the top, reading each folder's .gitignore and entering
// each parent folder (an ignored parent ignores everything below it).
func ignoredOnDisk(t *testing.T, top, rel string, isDir bool) bool {
	t.Helper()
	st, err := baseIgnores(filepath.Join(top, ".git"), "", false)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(rel, "/")
	dir := ""
	for i, name := range parts {
		if !st.excludedDir() {
			if data, err := os.ReadFile(filepath.Join(top, dir, ".gitignore")); err == nil {
				st = st.push(parseIgnore(data, dir, false))
			}
		}
		p := name
		if dir != "" {
			p = dir + "/" + name
		}
		if i == len(parts)-1 {
			return st.ignored(p, name, isDir)
		}
		st = st.enter(p, name)
		dir = p
	}
	return false
}
