package workspace

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
)

// typicalAttributes is a .gitattributes as many projects have one: most
// lines only describe files, one converts line endings.
const typicalAttributes = "*.png binary\n*.md diff=markdown\ndocs/** linguist-documentation\n*.txt text eol=lf\n"

var attrOracleCases = []oracleCase{
	{name: "typical gitattributes", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write(".gitattributes", typicalAttributes)
		r.Write("crlf.txt", "one\r\ntwo\r\n")
		r.Write("dir/b.txt", "bravo\r\nchanged\r\n")
		r.Write("img.png", "\x89PNG\r\n\x1a\n")
		r.Write("docs/guide.md", "# Guide\r\n")
		r.Write("docs/deep/notes.txt", "notes\r\n")
	}},
	{name: "gitattributes committed, files changed after", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write(".gitattributes", typicalAttributes)
		r.Write("kept.txt", "lf only\n")
		r.Commit("attributes")
		r.Write("kept.txt", "now\r\ncrlf\r\n")
		r.Write("a.txt", "alpha\r\n")
	}},
	{name: "nested gitattributes", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write(".gitattributes", "*.txt text\n[attr]lf text eol=lf\n")
		r.Write("dir/.gitattributes", "*.txt -text\n*.dat lf\n")
		r.Write("dir/sub/.gitattributes", "c.txt text\n")
		r.Write("dir/x.txt", "kept\r\n")
		r.Write("dir/y.dat", "converted\r\n")
		r.Write("dir/sub/c.txt", "converted\r\n")
		r.Write("dir/sub/d.txt", "kept\r\n")
		r.Write("top.txt", "converted\r\n")
	}},
	{name: "conversions with odd names", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write(".gitattributes", "* text\n")
		for _, n := range []string{"new\nline", "tab\there", "quote\"and\\backslash", "-dash", "sp ace", "trail\r", "\"lead"} {
			r.Write(n, "x\r\ny\r\n")
		}
	}},
	{name: "core.autocrlf with binary files", setup: func(t *testing.T, r *gittest.Repo) {
		r.Git("config", "core.autocrlf", "true")
		r.Write(".gitattributes", "*.bin binary\n")
		r.Write("a.txt", "alpha\r\n")
		r.Write("x.bin", "raw\r\n")
	}},
	{name: "info attributes", setup: func(t *testing.T, r *gittest.Repo) {
		gittest.WriteFile(t, filepath.Join(r.Dir, ".git/info/attributes"), "*.txt text\n")
		r.Write("a.txt", "alpha\r\n")
		r.Write("new.txt", "new\r\n")
	}},
	{name: "line endings without carriage returns", setup: func(t *testing.T, r *gittest.Repo) {
		// Converted only in their line endings; those without a CR are
		// stored as they are, the others go to git.
		r.Write(".gitattributes", "*.txt text eol=lf\n*.crlf eol=crlf\n*.auto text=auto\n*.legacy crlf\n*.id ident\n")
		r.Write("lf.txt", "lf only\n")
		r.Write("dir/b.txt", "bravo changed, lf\n")
		r.Write("mixed.txt", "lf\ncrlf\r\n")
		r.Write("lonecr.txt", "lone\rcr\n")
		r.Write("x.crlf", "lf in a crlf file\n")
		r.Write("y.crlf", "crlf\r\n")
		r.Write("z.auto", "auto, lf\n")
		r.Write("w.auto", "auto\x00binary\r\n")
		r.Write("v.legacy", "legacy crlf attribute\n")
		r.Write("u.id", "$Id$\n")
		r.Write("empty.txt", "")
	}},
	{name: "text and eol conversions of CRLF", setup: func(t *testing.T, r *gittest.Repo) {
		// text set or eol given: every CR before an LF is dropped, in process.
		r.Write(".gitattributes", "*.txt text\n*.lf eol=lf\n*.crlf eol=crlf\n*.both text eol=crlf\n*.value text=other\n")
		r.Write("a.txt", "alpha\r\n")
		r.Write("many.txt", "one\r\ntwo\r\nthree\n")
		r.Write("doublecr.txt", "x\r\r\ny\r")
		r.Write("trailing.txt", "no newline at the end\r")
		r.Write("binary.txt", "\x00\x01\r\n\xff")
		r.Write("only.txt", "\r\n")
		r.Write("dir/x.lf", "eol lf\r\n")
		r.Write("y.crlf", "eol crlf\r\nand lf\n")
		r.Write("z.both", "both\r\n")
		r.Write("w.value", "unknown text value\r\n")
		r.Write("dir/b.txt", "bravo\r\nchanged\r\n")
	}},
	{name: "core.autocrlf with lf files", setup: func(t *testing.T, r *gittest.Repo) {
		r.Git("config", "core.autocrlf", "true")
		r.Write("a.txt", "alpha lf\n")
		r.Write("new.txt", "new lf\n")
		r.Write("cr.txt", "new\r\n")
	}},
	{name: "core.autocrlf with CRLF committed", setup: func(t *testing.T, r *gittest.Repo) {
		// git add keeps CRLF in a file whose staged blob has CRLF already
		// (convert.c's has_crlf_in_index); git hash-object, which reads no
		// index, would convert it.
		r.Write("committed.txt", "one\r\ntwo\r\n")
		r.Write("touched.txt", "alpha\r\n")
		r.Write("lf.txt", "lf\n")
		r.Commit("crlf files")
		r.Git("config", "core.autocrlf", "true")
		r.Write("committed.txt", "one\r\ntwo\r\nthree\r\n")
		r.Write("touched.txt", "alpha\r\n")
		r.Write("lf.txt", "now\r\ncrlf\r\n")
		r.Write("new.txt", "new\r\n")
	}},
	{name: "text=auto with CRLF committed", setup: func(t *testing.T, r *gittest.Repo) {
		// big.c is over the size converted in memory: kept as it is
		// without git either.
		big := strings.Repeat("int big;\r\n", 1<<17)
		r.Write("committed.c", "int x;\r\n")
		r.Write("binary.c", "\x00bin\r\n")
		r.Write("big.c", big)
		r.Commit("crlf files")
		r.Write(".gitattributes", "* text=auto\n")
		r.Write("committed.c", "int x;\r\nint y;\r\n")
		r.Write("binary.c", "\x00bin\r\nmore\r\n")
		r.Write("big.c", big+"int more;\r\n")
		r.Write("new.c", "int z;\r\n")
	}},
	{name: "core.safecrlf=true with CRLF committed", setup: func(t *testing.T, r *gittest.Repo) {
		// Guessed line endings kept as the staged blob has them: git
		// neither converts nor refuses, and gitguard needs no git.
		r.Write("committed.c", "int x;\r\n")
		r.Commit("crlf files")
		r.Git("config", "core.safecrlf", "true")
		r.Write(".gitattributes", "*.c text=auto\n")
		r.Write("committed.c", "int x;\r\nint y;\r\n")
		r.Write("binary.c", "\x00bin\r\n")
	}},
	{name: "core.safecrlf=true", setup: func(t *testing.T, r *gittest.Repo) {
		r.Git("config", "core.safecrlf", "true")
		r.Write(".gitattributes", "*.txt text eol=lf\n")
		r.Write("a.txt", "alpha lf\n")
		r.Write("new.txt", "new lf\n")
	}},
	{name: "gitattributes deleted but still in the index", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("dir/.gitattributes", "*.txt text\n")
		r.Commit("attributes")
		r.Remove("dir/.gitattributes")
		r.Write("dir/b.txt", "bravo\r\n")
		r.Write("dir/new.txt", "new\r\n")
	}},
}

// TestSnapshotWithAttributesMatchesGit is TestSnapshotMatchesGit with
// attribute files that convert some files and only describe others.
func TestSnapshotWithAttributesMatchesGit(t *testing.T) {
	for _, tc := range attrOracleCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			base(t, r)
			tc.setup(t, r)
			checkOracle(t, r.Dir)
		})
	}
}

// gitCalls records the git commands run until the returned function is called.
func gitCalls(t *testing.T) func() [][]string {
	var mu sync.Mutex
	var calls [][]string
	old := git.Logger
	git.Logger = slog.New(recordHandler{mu: &mu, calls: &calls})
	t.Cleanup(func() { git.Logger = old })
	return func() [][]string {
		mu.Lock()
		defer mu.Unlock()
		git.Logger = old
		return calls
	}
}

type recordHandler struct {
	mu    *sync.Mutex
	calls *[][]string
}

func (h recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordHandler) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "args" {
			if args, ok := a.Value.Any().([]string); ok {
				h.mu.Lock()
				*h.calls = append(*h.calls, args)
				h.mu.Unlock()
			}
		}
		return true
	})
	return nil
}
func (h recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h recordHandler) WithGroup(string) slog.Handler      { return h }

// TestSnapshotAttributesGitCalls: a snapshot hashes the files git converts
// with one git process, whatever their number, and starts none for files
// whose attributes convert nothing.
func TestSnapshotAttributesGitCalls(t *testing.T) {
	r := gittest.New(t)
	base(t, r)
	r.Write(".gitattributes", typicalAttributes)
	r.Commit("attributes")
	ws := openWS(t, r.Dir)
	for i := 0; i < 30; i++ {
		r.Write(filepath.Join("docs", strings.Repeat("x", i+1)+".md"), "doc\r\n")
		r.Write(filepath.Join("img", strings.Repeat("y", i+1)+".png"), "png\r\n")
	}
	done := gitCalls(t)
	if _, err := ws.Snapshot(context.Background()); err != nil {
		t.Fatal(err)
	}
	if calls := done(); len(calls) != 0 {
		t.Errorf("snapshot without converted files ran git %d times: %q", len(calls), calls)
	}

	// ident needs git (text with CRLF alone no longer does: see
	// TestSnapshotLineEndingsInProcess).
	r.Write("notes/.gitattributes", "*.txt ident\n")
	for i := 0; i < 30; i++ {
		r.Write(filepath.Join("notes", strings.Repeat("z", i+1)+".txt"), "note $Id$\r\n")
	}
	done = gitCalls(t)
	if _, err := ws.Snapshot(context.Background()); err != nil {
		t.Fatal(err)
	}
	calls := done()
	if len(calls) != 1 || !strings.Contains(strings.Join(calls[0], " "), "hash-object -w --stdin-paths") {
		t.Errorf("snapshot of 30 converted files ran %q, want one git hash-object --stdin-paths", calls)
	}
	checkOracle(t, r.Dir)
}

// TestSnapshotLineEndingsInProcess: files whose only conversion is of line
// endings are stored in process, as git would store them, without a git
// process: those without a carriage return as they are, text set (every
// CRLF becomes LF), text=auto (the same, unless the content looks binary or
// the staged blob has CRLF); git hashes only the others (ident here).
func TestSnapshotLineEndingsInProcess(t *testing.T) {
	r := gittest.New(t)
	base(t, r)
	r.Write(".gitattributes", "* text=auto\n*.txt text eol=lf\n*.id ident\n")
	r.Commit("attributes")
	ws := openWS(t, r.Dir)
	// snapshot takes a snapshot that must run git wantGit times, and checks
	// it against git add -A.
	snapshot := func(what string, wantGit int) {
		t.Helper()
		done := gitCalls(t)
		if _, err := ws.Snapshot(context.Background()); err != nil {
			t.Fatal(err)
		}
		if calls := done(); len(calls) != wantGit {
			t.Errorf("snapshot of %s ran git %q, want %d process(es)", what, calls, wantGit)
		}
		checkOracle(t, r.Dir)
	}
	for i := 0; i < 20; i++ {
		r.Write(filepath.Join("lf", strings.Repeat("x", i+1)+".txt"), "lf line\n")
		r.Write(filepath.Join("auto", strings.Repeat("y", i+1)+".c"), "int x;\n")
	}
	snapshot("files without carriage returns", 0)

	for i := 0; i < 20; i++ {
		r.Write(filepath.Join("lf", strings.Repeat("z", i+1)+".txt"), "crlf line\r\n")
	}
	snapshot("text files with CRLF", 0)

	r.Write("auto/crlf.c", "int y;\r\n")
	r.Write("auto/binary.c", "\x00int y;\r\n")
	r.Write("auto/lonecr.c", "int\ry;\r\n")
	snapshot("text=auto files with CRLF", 0)

	r.Write("x.id", "$Id$\r\n")
	snapshot("one ident file", 1)
}

// TestCaptureWithAttributes: a single file's capture, stored or not,
// records what `git hash-object` stages for it, converted or not.
func TestCaptureWithAttributes(t *testing.T) {
	r := gittest.New(t)
	base(t, r)
	r.Write(".gitattributes", typicalAttributes)
	r.Write("sub/.gitattributes", "*.png -binary text\n")
	files := []string{"crlf.txt", "img.png", "sub/img.png", "docs/x.md", "odd\nname.txt"}
	for _, f := range files {
		r.Write(f, "one\r\ntwo\r\n")
	}
	ws := openWS(t, r.Dir)
	for _, f := range files {
		want := strings.TrimSpace(r.Git("hash-object", "--path", f, "--", f))
		for _, store := range []bool{false, true} {
			fs, _, err := ws.Capture(f, store)
			if err != nil {
				t.Fatalf("Capture(%q, %v): %v", f, store, err)
			}
			if fs.Hash.String() != want {
				t.Errorf("Capture(%q, %v) = %s, git hash-object = %s", f, store, fs.Hash, want)
			}
			if store && !gittest.HasObject(r.Dir, fs.Hash) {
				t.Errorf("Capture(%q, true): blob %s not stored", f, fs.Hash)
			}
		}
	}
}

// TestCaptureLineEndingsInProcess: a single file's capture, as an agent
// hook takes it, works out line endings in process as a snapshot does
// (TestSnapshotLineEndingsInProcess): without a git process for text, eol
// or text=auto files, what git add stages, stored or not, also where the
// staged blob has CRLF and git keeps it; git hashes only filtered files
// (ident here), and under core.safecrlf=true every file git might refuse.
func TestCaptureLineEndingsInProcess(t *testing.T) {
	r := gittest.New(t)
	base(t, r)
	big := strings.Repeat("int big;\r\n", 1<<17) // over what is converted in memory
	r.Write("staged-crlf.c", "int s;\r\n")       // committed before the attributes: CRLF in the blob
	r.Write("big-crlf.c", big)
	r.Commit("crlf")
	r.Write(".gitattributes", "*.c text=auto\n*.txt text eol=lf\n*.crlf eol=crlf\n*.id ident\n")
	r.Commit("attributes")
	inProcess := map[string]string{
		"lf.txt":         "one\ntwo\n",
		"crlf.txt":       "one\r\ntwo\r\n",
		"lone-cr.txt":    "one\rtwo\r\n",
		"plain.c":        "int x;\n",
		"plain.crlf":     "one\ntwo\n",
		"odd\nname.txt":  "one\r\n",
		"auto.c":         "int y;\r\n",
		"binary.c":       "\x00int y;\r\n",
		"staged-crlf.c":  "int s;\r\nint t;\r\n",
		"dos-eof.c":      "int d;\r\n\x1a",
		"control-only.c": "\x01\x02\x03\r\n",
	}
	byGit := map[string]string{"x.id": "$Id$\r\n"}
	inProcess["big-crlf.c"] = big + "int more;\r\n"
	for f, content := range inProcess {
		r.Write(f, content)
	}
	for f, content := range byGit {
		r.Write(f, content)
	}
	capture := func(ws *Workspace, f string, wantCalls int) {
		t.Helper()
		want := addedBlob(t, r.Dir, f)
		for _, store := range []bool{false, true} {
			done := gitCalls(t)
			fs, _, err := ws.Capture(f, store)
			calls := done()
			if err != nil {
				t.Fatalf("Capture(%q, %v): %v", f, store, err)
			}
			if fs.Hash.String() != want {
				t.Errorf("Capture(%q, %v) = %s, git add stages %s", f, store, fs.Hash, want)
			}
			if len(calls) != wantCalls {
				t.Errorf("Capture(%q, %v) ran git %q, want %d process(es)", f, store, calls, wantCalls)
			}
			if store && !gittest.HasObject(r.Dir, fs.Hash) {
				t.Errorf("Capture(%q, true): blob %s not stored", f, fs.Hash)
			}
		}
	}
	ws := openWS(t, r.Dir)
	for f := range inProcess {
		capture(ws, f, 0)
	}
	for f := range byGit {
		capture(ws, f, 1)
	}
	if got := addedBlob(t, r.Dir, "staged-crlf.c"); got != strings.TrimSpace(r.Git("hash-object", "--no-filters", "staged-crlf.c")) {
		t.Errorf("git add converted staged-crlf.c (%s): the case this test is for is gone", got)
	}

	r.Git("config", "core.safecrlf", "true")
	ws = openWS(t, r.Dir)
	capture(ws, "lf.txt", 1)
	capture(ws, "staged-crlf.c", 0) // kept as it is: git would neither convert nor refuse
	capture(ws, "binary.c", 0)
	r.Git("fsck", "--strict")
}

// addedBlob returns the blob git add stages for path, in a copy of the
// repository's index.
func addedBlob(t *testing.T, dir, path string) string {
	t.Helper()
	idx := scratchIndex(t, dir)
	env := []string{"GIT_INDEX_FILE=" + idx}
	if _, err := (git.Cmd{Dir: dir, Args: []string{"add", "--", path}, Env: env}).Run(context.Background()); err != nil {
		t.Fatalf("git add %q: %v", path, err)
	}
	out, err := git.Cmd{Dir: dir, Args: []string{"ls-files", "-s", "-z", "--", path}, Env: env}.Run(context.Background())
	if err != nil {
		t.Fatalf("git ls-files %q: %v", path, err)
	}
	fields := strings.Fields(string(out))
	if len(fields) < 2 {
		t.Fatalf("git ls-files %q: %q", path, out)
	}
	return fields[1]
}

// TestStatCacheFollowsConversion: a hash the stat cache keeps is not used
// once git would convert the file differently: .gitattributes added or
// edited, core.autocrlf turned on, or another blob staged for a file whose
// line endings git guesses (it keeps CRLF only when the staged blob has
// them). Each step first checks that the cache serves the file, then that
// the snapshot after the change is what git add -A stages.
func TestStatCacheFollowsConversion(t *testing.T) {
	r := gittest.New(t)
	base(t, r)
	r.Write("staged.c", "int s;\r\n") // committed before any attribute: CRLF in the blob
	r.Commit("crlf")
	r.Write("u.txt", "one\r\ntwo\r\n")
	r.Write("staged.c", "int s;\r\nint t;\r\n")
	cached := func(step string) {
		t.Helper()
		for _, f := range []string{"u.txt", "staged.c", ".gitattributes"} {
			if full := filepath.Join(r.Dir, f); fileExists(full) {
				setClock(t, ctimeOf(t, full).Add(time.Hour))
			}
		}
		snap(t, r.Dir) // hashes and saves
		if s := snap(t, r.Dir); s.Stats.Cached < 2 {
			t.Fatalf("%s: the stat cache served %d files, want u.txt and staged.c", step, s.Stats.Cached)
		}
	}
	cached("no attributes")
	r.Write(".gitattributes", "*.txt text\n")
	checkOracle(t, r.Dir)

	cached("*.txt text")
	r.Write(".gitattributes", "*.txt -text\n")
	checkOracle(t, r.Dir)

	cached("*.txt -text")
	r.Remove(".gitattributes")
	r.Git("config", "core.autocrlf", "true")
	checkOracle(t, r.Dir)

	r.Write(".gitattributes", "*.c text=auto\n")
	cached("*.c text=auto, CRLF staged")
	lfFile := filepath.Join(t.TempDir(), "lf.c")
	gittest.WriteFile(t, lfFile, "int s;\n")
	blob := strings.TrimSpace(r.Git("hash-object", "-w", "--no-filters", lfFile))
	r.Git("update-index", "--cacheinfo", "100644,"+blob+",staged.c")
	checkOracle(t, r.Dir)
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
