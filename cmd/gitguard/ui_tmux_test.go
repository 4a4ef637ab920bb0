package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/gittest"
)

// tmuxSession is a tmux server of the test's own (its own socket), with one
// 80x24 session running a command.
type tmuxSession struct {
	t    *testing.T
	tmux string
	sock string
	env  []string
}

// requireTmux finds tmux; without it the test skips, except in CI
// (CI=true or GITGUARD_TEST_REQUIRE_GIT=1), where it fails: .ci/run
// installs tmux.
func requireTmux(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") == "true" || os.Getenv("GITGUARD_TEST_REQUIRE_GIT") == "1" {
			t.Fatalf("tmux is required for the terminal view's end-to-end test (apt-get install tmux): %v", err)
		}
		t.Skipf("tmux not available: %v", err)
	}
	return p
}

// buildGitguard builds this command into a temporary folder.
func buildGitguard(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to build gitguard with: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "gitguard")
	cmd := exec.Command(goTool, "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	cmd := exec.Command(s.tmux, append([]string{"-S", s.sock, "-f", "/dev/null"}, args...)...)
	cmd.Env = s.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

func (s *tmuxSession) screen() string { return s.run("capture-pane", "-p", "-t", "ui") }

func (s *tmuxSession) keys(keys ...string) {
	s.t.Helper()
	s.run(append([]string{"send-keys", "-t", "ui"}, keys...)...)
}

// waitFor polls the screen until it matches re; after a generous limit
// (this is no timing assertion: a slow machine only waits longer) it fails
// with the screen.
func (s *tmuxSession) waitFor(re string) string {
	s.t.Helper()
	rx := regexp.MustCompile(re)
	var scr string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if scr = s.screen(); rx.MatchString(scr) {
			return scr
		}
	}
	s.t.Fatalf("screen never matched %q:\n%s", re, scr)
	return ""
}

// TestUITmux drives the real gitguard binary in a real terminal: a run with
// three calls and a user edit; the middle call is selected and undone with
// two keys; git then shows the agent's line gone and the user's kept, git
// fsck is clean, the user's refs, HEAD, index and stash are as they were,
// and ctrl+c leaves the terminal as it was (cooked mode, main screen).
func TestUITmux(t *testing.T) {
	t.Parallel()
	tmux := requireTmux(t)
	// The go command finds its caches under the sealed HOME: gittest.Main
	// keeps GOCACHE, GOPATH, GOMODCACHE and GOENV where they were.
	bin := buildGitguard(t)
	r := gittest.New(t)
	r.Write("a.txt", "one\ntwo\nthree\n")
	r.Write("b.txt", "x\n")
	r.Commit("init")
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GITGUARD_RUN=", "GITGUARD_NO_DAEMON=1", "NO_COLOR=")
	gg := func(args ...string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = r.Dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gitguard %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	gg("start", "--run", "r1")
	before, err := gittest.UserState(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ id, path, content string }{
		{"c1", "a.txt", "one\ntwo\nthree\nfour\n"},
		{"c2", "b.txt", "x\nagent line\n"},
		{"c3", "a.txt", "ONE\ntwo\nthree\nfour\n"},
	} {
		gg("call", "start", c.id, "--tool", "edit", "--", c.path)
		r.Write(c.path, c.content)
		gg("call", "finish", c.id)
	}
	r.Write("b.txt", "user top\nx\nagent line\n")

	dir, err := os.MkdirTemp("", "gg-tmux") // short: a socket path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &tmuxSession{t: t, tmux: tmux, sock: filepath.Join(dir, "sock"), env: env}
	script := "stty sane; echo BEFORE-UI; gitguard ui; echo EXIT=$?; stty -a | tr ' ' '\\n' | grep -x -- '-\\{0,1\\}icanon'; sleep 600"
	s.run("new-session", "-d", "-x", "80", "-y", "24", "-s", "ui", "-c", r.Dir, "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command(tmux, "-S", s.sock, "kill-server").Run() })

	scr := s.waitFor(`── c3 · edit · succeeded`)
	// c1's a.txt was changed by the run's own later call c3: no conflict.
	if strings.Index(scr, "b.txt") > strings.LastIndex(scr, "a.txt changed") || strings.Contains(scr, "conflicted") {
		t.Fatalf("calls not newest first, or a path called conflicted:\n%s", scr)
	}
	s.keys("Down")
	s.waitFor(`── c2 · edit · succeeded(.|\n)*merge: the agent's hunks go, yours stay`)
	s.keys("u")
	s.waitFor(`Undo call c2 \(edit\)\?(.|\n)*y: yes, write it`)
	if got := r.Read("b.txt"); got != "user top\nx\nagent line\n" {
		t.Fatalf("the confirmation alone wrote b.txt: %q", got)
	}
	s.keys("y")
	s.waitFor(`undid c2: 1 path\(s\) written; recorded as undo-`)
	s.keys("C-c")
	scr = s.waitFor(`EXIT=\d+\n`)
	if !strings.Contains(scr, "EXIT=0") {
		t.Fatalf("gitguard ui did not exit 0:\n%s", scr)
	}
	// The terminal is back: the shell's line is there, the view is gone
	// (it ran on the alternate screen), and the tty is in cooked mode.
	scr = s.waitFor(`icanon`)
	if !strings.Contains(scr, "BEFORE-UI") || strings.Contains(scr, "gitguard ui ·") || !regexp.MustCompile(`(?m)^icanon$`).MatchString(scr) {
		t.Fatalf("terminal not restored after ctrl+c:\n%s", scr)
	}

	// Checked with git: the agent's line is gone, the user's kept; a.txt
	// (c3's and c1's) is untouched.
	if got, want := r.Git("hash-object", "b.txt"), gitBlob(t, r, "user top\nx\n"); got != want {
		t.Fatalf("b.txt is %s (%q), want the user's edit without the agent's line", got, r.Read("b.txt"))
	}
	if got, want := r.Git("hash-object", "a.txt"), gitBlob(t, r, "ONE\ntwo\nthree\nfour\n"); got != want {
		t.Fatalf("a.txt changed: %q", r.Read("a.txt"))
	}
	r.Git("fsck", "--strict", "--no-progress")
	after, err := gittest.UserState(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Fatalf("invariant 1 broken by gitguard ui:\n%s", gittest.Diff(before, after))
	}
	if st := r.Git("status", "--porcelain"); st != "M a.txt\n M b.txt" && st != " M a.txt\n M b.txt" {
		t.Fatalf("git status after undo:\n%s", st)
	}
}

// gitBlob is git's id for content.
func gitBlob(t *testing.T, r *gittest.Repo, content string) string {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "--stdin")
	cmd.Dir = r.Dir
	cmd.Stdin = strings.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
