package workspace

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// gitAttrs asks `git check-attr -a` for every path at once and returns
// what it prints, per path, as "attr=value" lines.
func gitAttrs(t *testing.T, dir string, paths []string) map[string][]string {
	t.Helper()
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	out, err := git.Cmd{Dir: dir, Args: []string{"check-attr", "-a", "-z", "--stdin"}, Stdin: &in}.Run(context.Background())
	if err != nil {
		t.Fatalf("git check-attr: %v", err)
	}
	res := map[string][]string{}
	f := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	for i := 0; i+2 < len(f); i += 3 {
		res[f[i]] = append(res[f[i]], f[i+1]+"="+f[i+2])
	}
	for _, p := range paths {
		sort.Strings(res[p])
	}
	return res
}

// ourAttrs is attrRules.lookup in the same form as gitAttrs.
func ourAttrs(t *testing.T, dir string, paths []string) map[string][]string {
	t.Helper()
	ws := openWS(t, dir)
	idx, err := ws.ReadIndex(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rules := ws.newAttrRules(indexedAttrDirs(idx))
	res := map[string][]string{}
	for _, p := range paths {
		attrs, unsure := rules.lookup(p)
		if unsure {
			t.Fatalf("lookup(%q) unsure", p)
		}
		var lines []string
		for k, v := range attrs {
			lines = append(lines, k+"="+v.String())
		}
		sort.Strings(lines)
		res[p] = lines
	}
	return res
}

// checkAttrsMatchGit compares the in-process attributes of paths with
// git's, and the conversion decision with one made from git's answer.
func checkAttrsMatchGit(t *testing.T, dir string, paths []string) {
	t.Helper()
	want, got := gitAttrs(t, dir, paths), ourAttrs(t, dir, paths)
	for _, p := range paths {
		if d := cmp.Diff(want[p], got[p]); d != "" {
			t.Errorf("attributes of %q differ from git check-attr (-git +ours):\n%s", p, d)
		}
	}
	ws := openWS(t, dir)
	rules := ws.newAttrRules(nil)
	for _, p := range paths {
		gitConv := conversionOf(parseCheckAttr(want[p]), ws.autocrlf)
		conv, unsure := rules.converts(p, ws.autocrlf)
		if unsure || conv != gitConv {
			t.Errorf("converts(%q) = %v (unsure %v), from git's attributes %v", p, conv, unsure, gitConv)
		}
	}
}

func parseCheckAttr(lines []string) map[string]attrState {
	m := map[string]attrState{}
	for _, l := range lines {
		k, v, _ := strings.Cut(l, "=")
		switch v {
		case "set":
			m[k] = attrState{name: k, kind: attrSet}
		case "unset":
			m[k] = attrState{name: k, kind: attrUnset}
		default:
			m[k] = attrState{name: k, kind: attrValue, value: v}
		}
	}
	return m
}

// attrPaths are file names every table case is asked about.
var attrPaths = []string{
	"a.txt", "b.c", "b.h", "x.x", "m.m", "img.png", "doc.md", "top.txt", "local.txt",
	"sub/a.txt", "sub/b.c", "sub/local.txt", "sub/top.txt", "sub/d/a.txt", "sub/d/e/a.txt",
	"docs/a.md", "docs/deep/er/b.png", "a/b/c.c", "a/x/b/y", "a/b", "x/gen/y.go", "gen/z",
	"foo", "x/foo", "foo/bar", "foo/bar/baz", "with space.txt", `q"uote`, "tab\there",
	"\u00e9.txt", "A.TXT", "Dir/x.c", "dir/x.c", "DIR/X.C", "!bang.txt", "#hash.txt",
	"a.bin", "z.z", "e.e", "cls/a.txt", "d.txt", "1.txt", "abc", "sub/.gitattributes",
	".gitattributes", "x.y/z", "long.l", "crlf.r", "bom.b", "-dash", "a/b/c/d/e/f.txt",
}

var attrCases = []struct {
	name   string
	files  map[string]string // work-tree files, relative to the top
	info   string            // .git/info/attributes
	global string            // core.attributesFile
	config []string          // git config key value pairs
}{
	{name: "macros", files: map[string]string{".gitattributes": "" +
		"[attr]mine text eol=crlf\n*.c mine\n*.h -mine\n*.x mine=foo\n" +
		"[attr]ma mb x=1\n[attr]mb mc -x\n[attr]mc y\n*.m ma\n" +
		"*.bin binary\n*.png binary\n*.png !diff\n" +
		"[attr]loop loop other\n*.z loop\n"}},
	{name: "binary redefined", files: map[string]string{".gitattributes": "[attr]binary -text diff=bin\n*.png binary\n*.bin binary\n"}},
	{name: "macro overridden later", files: map[string]string{".gitattributes": "*.c mac\n[attr]mac one\n*.h mac\n[attr]mac two\n"}},
	{name: "negation and unset", files: map[string]string{".gitattributes": "" +
		"*.txt text\nsub/*.txt -text\n*.md !text diff=markdown\n!*.c text\n*.c foo\n*.c !foo\n" +
		"*.md text\n*.md !text\n"}},
	{name: "folder patterns", files: map[string]string{".gitattributes": "" +
		"docs/** linguist-documentation\n/top.txt toponly\nsub/ dironly\na/b/*.c abc\n**/gen/** gen\n" +
		"a/**/b axb\n**/foo anyfoo\nfoo/** underfoo\nfoo fooname\n*.go/ never\na/b/c/d/** deep\n/sub/d/a.txt abs\n"}},
	{name: "nested files", files: map[string]string{
		".gitattributes":       "*.txt a=1 top\n[attr]m mac\n",
		"sub/.gitattributes":   "*.txt a=2\n[attr]m2 notallowed\n/local.txt b\nd/*.txt c\n*.c m\ntop.txt -top\n",
		"sub/d/.gitattributes": "*.txt -a\n/a.txt m\ne/* deeper\n",
		"docs/.gitattributes":  "*.md docs\n**/b.png deep\n",
	}},
	{name: "info and global", files: map[string]string{".gitattributes": "*.txt t=top g=top\n[attr]m fromtop\n"},
		info:   "*.txt t=info\nsub/** i\n[attr]m frominfo\n*.c m\n",
		global: "*.txt t=global g=global gl\n*.c gc\n[attr]m fromglobal\n*.h m\n"},
	{name: "quoted names", files: map[string]string{".gitattributes": "" +
		"\"with space.txt\" sp\n\"q\\\"uote\" qq\n\"tab\\there\" tb\n\"\\303\\251.txt\" acute\n" +
		"\\!bang.txt bang\n\\#hash.txt hash\n\"unterminated x\n\"a.txt\"after q2\n\"-dash\" dash\n"}},
	{name: "ignore case", config: []string{"core.ignorecase", "true"}, files: map[string]string{
		".gitattributes":     "*.TXT up\nDir/*.c dc\n[A-C].txt cls\n",
		"Dir/.gitattributes": "X.C inner\n",
	}},
	{name: "case sensitive", files: map[string]string{
		".gitattributes":     "*.TXT up\nDir/*.c dc\n",
		"Dir/.gitattributes": "X.C inner\n*.c dirc\n",
	}},
	{name: "bad lines", files: map[string]string{".gitattributes": "" +
		"*.z bad@name ok\n*.z -\n*.e a=b=c\n*.e =x\n*.e ok2 -neg=val !un=val\n   # comment\n\t*.e   spaced\t tab \n" +
		"*.e  \n" + "*.l " + strings.Repeat("x", 2050) + "\n*.l short\n" +
		"*.r crlf-line\r\n*.r second\r\n*.e trailing=\n" + "*.e bad/name\n*.e \x00nul\n"}},
	{name: "bom", files: map[string]string{".gitattributes": "\xef\xbb\xbf*.b bom\n*.b two\n"}},
	{name: "classes and wildcards", files: map[string]string{".gitattributes": "" +
		"[a-c]*.txt cls\n?.txt one\n[!a]*.c notA\n*.[ch] ch\nx.y/z slashdot\n[[:digit:]].txt digit\n-dash dash\n*/* anydir\n"}},
	{name: "conversions", config: []string{"core.autocrlf", "input"}, files: map[string]string{".gitattributes": "" +
		"*.txt text eol=lf\n*.c -text\n*.h crlf\n*.png -crlf\n*.md eol=crlf\n*.bin binary\n*.x filter=lfs -text\n" +
		"*.m ident\n*.e working-tree-encoding=UTF-16\n*.z text=auto\n*.r -text eol=crlf\n"}},
}

// TestAttrRulesMatchGit compares every attribute of many paths, looked up
// in process, with `git check-attr -a` on a table of attribute files.
func TestAttrRulesMatchGit(t *testing.T) {
	for _, tc := range attrCases {
		t.Run(tc.name, func(t *testing.T) {
			r := gittest.New(t)
			for i := 0; i+1 < len(tc.config); i += 2 {
				r.Git("config", tc.config[i], tc.config[i+1])
			}
			for name, content := range tc.files {
				r.Write(name, content)
			}
			if tc.info != "" {
				gittest.WriteFile(t, filepath.Join(r.Dir, ".git/info/attributes"), tc.info)
			}
			if tc.global != "" {
				g := filepath.Join(t.TempDir(), "attributes")
				gittest.WriteFile(t, g, tc.global)
				r.Git("config", "core.attributesFile", g)
			}
			checkAttrsMatchGit(t, r.Dir, attrPaths)
		})
	}
}

// TestAttrRulesDefaultGlobalFile: without core.attributesFile git reads
// $XDG_CONFIG_HOME/git/attributes.
func TestAttrRulesDefaultGlobalFile(t *testing.T) {
	gittest.Seal(t) // writes under XDG_CONFIG_HOME
	r := gittest.New(t)
	gittest.WriteFile(t, filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "git", "attributes"), "*.txt xdg text\n")
	r.Write(".gitattributes", "*.c c\n")
	checkAttrsMatchGit(t, r.Dir, attrPaths)
	if conv, _ := openWS(t, r.Dir).newAttrRules(nil).converts("a.txt", false); !conv {
		t.Error("a.txt: text from the default global file not seen")
	}
}

// TestAttrRulesUnsure: where git reads a copy gitguard does not (the
// index's .gitattributes when the work tree has none, a symlinked one),
// the lookup says so instead of guessing.
func TestAttrRulesUnsure(t *testing.T) {
	r := gittest.New(t)
	r.Write("sub/.gitattributes", "*.txt text\n")
	r.Write("other/.gitattributes", "*.txt text\n")
	r.Commit("attrs")
	r.Remove("sub/.gitattributes")
	r.Remove("other/.gitattributes")
	r.Symlink("../x", "other/.gitattributes")
	ws := openWS(t, r.Dir)
	idx, err := ws.ReadIndex(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rules := ws.newAttrRules(indexedAttrDirs(idx))
	for _, p := range []string{"sub/a.txt", "other/a.txt"} {
		if _, unsure := rules.converts(p, false); !unsure {
			t.Errorf("converts(%q): not unsure, but git reads the index's .gitattributes", p)
		}
	}
	if conv, unsure := rules.converts("a.txt", false); conv || unsure {
		t.Errorf("converts(a.txt) = %v, unsure %v; want false, false", conv, unsure)
	}
	// And git agrees that the index's copy applies.
	if got := gitAttrs(t, r.Dir, []string{"sub/a.txt"})["sub/a.txt"]; !cmp.Equal(got, []string{"text=set"}) {
		t.Errorf("git check-attr sub/a.txt = %v, want text=set (from the index)", got)
	}
}

// TestAttrRulesRandom compares random attribute files and paths with git.
func TestAttrRulesRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(19))
	names := []string{"a", "b", "c.txt", "d.c", "A.TXT", "x y", "e", "f.md"}
	dirs := []string{"", "a", "a/b", "b", "a/b/c", "A"}
	attrs := []string{"text", "eol", "diff", "mac", "binary", "foo", "crlf", "filter"}
	pattern := func() string {
		parts := []string{"*", "**", "a", "b", "*.txt", "*.c", "?", "[ab]*", "c.txt", "A*", "x y"}
		n := 1 + rng.Intn(3)
		var ps []string
		for i := 0; i < n; i++ {
			ps = append(ps, parts[rng.Intn(len(parts))])
		}
		p := strings.Join(ps, "/")
		switch rng.Intn(6) {
		case 0:
			p = "/" + p
		case 1:
			p = "**/" + p
		case 2:
			p += "/"
		}
		if strings.Contains(p, " ") {
			p = record.Quoted(p)
		}
		return p
	}
	state := func() string {
		a := attrs[rng.Intn(len(attrs))]
		switch rng.Intn(5) {
		case 0:
			return "-" + a
		case 1:
			return "!" + a
		case 2:
			return a + "=" + []string{"lf", "crlf", "v", "auto"}[rng.Intn(4)]
		}
		return a
	}
	file := func(top bool) string {
		var b strings.Builder
		for n := rng.Intn(6); n >= 0; n-- {
			if top && rng.Intn(5) == 0 {
				b.WriteString("[attr]mac")
			} else {
				b.WriteString(pattern())
			}
			for k := 1 + rng.Intn(3); k > 0; k-- {
				b.WriteString(" " + state())
			}
			b.WriteByte('\n')
		}
		return b.String()
	}
	for round := 0; round < 40; round++ {
		r := gittest.New(t)
		if round%4 == 3 {
			r.Git("config", "core.ignorecase", "true")
		}
		for _, d := range dirs {
			if rng.Intn(2) == 0 {
				r.Write(filepath.Join(d, ".gitattributes"), file(d == ""))
			}
		}
		if rng.Intn(3) == 0 {
			gittest.WriteFile(t, filepath.Join(r.Dir, ".git/info/attributes"), file(true))
		}
		var paths []string
		for _, d := range dirs {
			for _, n := range names {
				paths = append(paths, strings.TrimPrefix(d+"/"+n, "/"))
			}
		}
		t.Run(fmt.Sprint(round), func(t *testing.T) { checkAttrsMatchGit(t, r.Dir, paths) })
	}
}
