package main

import (
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
)

// oddNames are file names that break naive quoting and path handling.
func oddNames() []string {
	long := strings.Repeat("l", 200)
	deep := strings.Join([]string{long, long, long, long, long + ".txt"}, "/") // 1004 characters
	return []string{
		"with space.txt",
		"dir with space/inner file.txt",
		"ünïcødé/文件.txt",
		"-leading-dash.txt",
		"--double-dash",
		"tab\tname.txt",
		`quote"and'apostrophe.txt`,
		deep,
	}
}

// TestOddFileNames runs names with spaces, unicode, leading dashes, tabs,
// quotes and a 1000-character path (200-character components) through
// snapshot, a declared-paths call, a whole-workspace call, status and
// undo: every one is recorded, classified and restored exactly.
func TestOddFileNames(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	r := gittest.New(t)
	names := oddNames()
	for _, n := range names {
		r.Write(n, "original "+n+"\n")
	}
	r.Commit("init")
	mustRun(t, r.Dir, "start", "--run", "odd")
	mustRun(t, r.Dir, "snapshot")
	before, err := gittest.WorktreeDigest(r.Dir)
	if err != nil {
		t.Fatal(err)
	}

	// Declared paths: passed after --, so leading dashes are names.
	mustRun(t, r.Dir, append([]string{"call", "start", "p1", "--tool", "edit", "--"}, names...)...)
	for _, n := range names {
		r.Write(n, "agent "+n+"\n")
	}
	mustRun(t, r.Dir, "call", "finish", "p1")
	out := mustRun(t, r.Dir, "status", "--json")
	for _, n := range names {
		if !strings.Contains(out, jsonQuote(n)) {
			t.Errorf("status does not list %q:\n%s", n, out)
		}
	}
	mustRun(t, r.Dir, "undo")
	if got, _ := gittest.WorktreeDigest(r.Dir); got != before {
		t.Fatalf("undo of the declared-paths call differs:\n%s", gittest.Diff(before, got))
	}

	// Whole workspace: modify, create and delete odd names.
	mustRun(t, r.Dir, "call", "start", "w1", "--tool", "bash")
	for i, n := range names {
		if i%2 == 0 {
			r.Write(n, "shell "+n+"\n")
		} else {
			r.Remove(n)
		}
		r.Write("new "+strings.ReplaceAll(n, "/", " ")[:min(len(n), 100)], "created\n")
	}
	mustRun(t, r.Dir, "call", "finish", "w1")
	out = mustRun(t, r.Dir, "status")
	if strings.Count(out, "applied") != 2*len(names) {
		t.Errorf("want %d applied paths:\n%s", 2*len(names), out)
	}
	mustRun(t, r.Dir, "undo")
	if got, _ := gittest.WorktreeDigest(r.Dir); got != before {
		t.Fatalf("undo of the whole-workspace call differs:\n%s", gittest.Diff(before, got))
	}
	mustRun(t, r.Dir, "redo")
	mustRun(t, r.Dir, "undo")
	if got, _ := gittest.WorktreeDigest(r.Dir); got != before {
		t.Fatalf("undo after redo differs:\n%s", gittest.Diff(before, got))
	}
}

// jsonQuote is how encoding/json writes s (without the HTML escaping of
// <, > and & none of the names use).
func jsonQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\t", `\t`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
