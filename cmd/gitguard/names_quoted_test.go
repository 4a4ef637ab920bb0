package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
)

// TestOddNamesWholeWorkspace: names git allows but that break naive line
// output — a newline, a tab, a backslash, a leading dash — made by a
// whole-workspace call (no paths given, so the snapshot finds them) are
// recorded as they are, and every command works on the run end to end:
// status, diff, resume, log, show, ledger, undo and redo. Text output
// quotes them as git does ("new\nline"), so no name forges a line; --json
// carries them raw. Names the records cannot carry (not UTF-8; .GIT and
// git~1, which git refuses) are skipped loudly, in the call's output and in
// status, and do not make the run unusable.
func TestOddNamesWholeWorkspace(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	r := gittest.New(t)
	r.Write("small.txt", "small\n")
	r.Commit("init")
	odd := map[string]string{ // name → how text output shows it
		"new\nline":    `"new\nline"`,
		"tab\there":    `"tab\there"`,
		`back\slash`:   `"back\\slash"`,
		"-leading":     "-leading",
		"--double":     "--double",
		"dir\n/inner":  `"dir\n/inner"`,
		"esc\x1b[31mx": `"esc\033[31mx"`,
	}
	skipped := []string{"bad\xffname", ".GIT", "git~1"}
	mustRun(t, r.Dir, "start", "--run", "odd")
	before, _ := gittest.WorktreeDigest(r.Dir)
	mustRun(t, r.Dir, "call", "start", "w1", "--tool", "bash")
	for n := range odd {
		r.Write(n, "agent\n")
	}
	r.Write("small.txt", "small\nagent\n")
	for _, n := range skipped {
		if err := os.WriteFile(filepath.Join(r.Dir, n), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := mustRun(t, r.Dir, "call", "finish", "w1")
	for _, n := range []string{"bad\uFFFDname", ".GIT", "git~1"} {
		if !strings.Contains(out, "warning: "+n+" not recorded: ") {
			t.Errorf("call finish does not say %s was not recorded:\n%s", n, out)
		}
	}
	// No name may forge a line: every line of text output is one of ours.
	noRawName := func(cmd, out string) {
		t.Helper()
		for n := range odd {
			if n != "-leading" && n != "--double" && strings.Contains(out, n) {
				t.Errorf("%s prints %q unquoted:\n%s", cmd, n, out)
			}
		}
	}
	status := mustRun(t, r.Dir, "status")
	noRawName("status", status)
	for _, q := range odd {
		if !strings.Contains(status, "applied  "+q) && !strings.Contains(status, "applied  "+q+" ") {
			t.Errorf("status does not list %s as applied:\n%s", q, status)
		}
	}
	if strings.Count(status, "\n  applied ") != len(odd)+1 {
		t.Errorf("status: want %d applied lines:\n%s", len(odd)+1, status)
	}
	for _, n := range []string{".GIT", "git~1"} {
		if !strings.Contains(status, "skipped "+n+" (w1): ") {
			t.Errorf("status does not list %s as skipped:\n%s", n, status)
		}
	}
	js := mustRun(t, r.Dir, "status", "--json")
	var doc struct {
		Paths []struct{ Path, State string } `json:"paths"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	raw := map[string]bool{}
	for _, p := range doc.Paths {
		raw[p.Path] = true
	}
	for n := range odd {
		if !raw[n] {
			t.Errorf("status --json does not carry %q raw:\n%s", n, js)
		}
	}
	diff := mustRun(t, r.Dir, "diff")
	noRawName("diff", diff)
	if !strings.Contains(diff, "diff --git \"a/new\\nline\" \"b/new\\nline\"\n") {
		t.Errorf("diff does not quote the header as git does:\n%s", diff)
	}
	for _, args := range [][]string{{"resume"}, {"log"}, {"show", "ckpt_003"}, {"ledger"}, {"diff", "--stat"}} {
		noRawName(strings.Join(args, " "), mustRun(t, r.Dir, args...))
	}
	undo := mustRun(t, r.Dir, "undo")
	noRawName("undo", undo)
	if got, _ := gittest.WorktreeDigest(r.Dir); !sameBut(before, got, skipped) {
		t.Errorf("undo did not restore the work tree:\n%s", gittest.Diff(before, got))
	}
	mustRun(t, r.Dir, "redo")
	for n := range odd {
		if got := r.Read(n); got != "agent\n" {
			t.Errorf("redo: %q holds %q", n, got)
		}
	}
	mustRun(t, r.Dir, "undo")
	if got, _ := gittest.WorktreeDigest(r.Dir); !sameBut(before, got, skipped) {
		t.Errorf("undo after redo did not restore the work tree:\n%s", gittest.Diff(before, got))
	}
}

// sameBut compares two WorktreeDigest listings, ignoring lines of the
// names in skip (files the call could not record, so undo leaves them).
func sameBut(a, b string, skip []string) bool {
	drop := func(s string) string {
		var keep []string
	line:
		for _, l := range strings.Split(s, "\n") {
			for _, n := range skip {
				if strings.HasPrefix(l, n+" ") {
					continue line
				}
			}
			keep = append(keep, l)
		}
		return strings.Join(keep, "\n")
	}
	return drop(a) == drop(b)
}

// TestErrorStaysOneLine: an error message that names a file with a newline
// or an escape sequence in it is still one line on stderr, with the
// control characters escaped.
func TestErrorStaysOneLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain":                        "plain",
		"undo new\nline: failed":       `undo new\nline: failed`,
		"esc\x1b[2J here, \"quoted\"":  `esc\x1b[2J here, "quoted"`,
		"ünïcødé stays \u00e9":         "ünïcødé stays \u00e9",
		"c1 control \u009b[31m inside": `c1 control \u009b[31m inside`,
	} {
		if got := oneLineMessage(in); got != want {
			t.Errorf("oneLineMessage(%q) = %q, want %q", in, got, want)
		}
	}
}
