package e2e

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
)

// workspace is a throwaway repository with the scenario's files committed,
// a stash entry and a staged file, so that every part of the user's state
// invariant 1 protects is there to be disturbed.
type workspace struct {
	dir  string // the work tree
	home string // HOME for the agent
	env  []string
	// userState is gittest.UserState after the setup.
	userState string
}

func newWorkspace(t testing.TB) *workspace {
	t.Helper()
	root := t.TempDir()
	ws := &workspace{dir: filepath.Join(root, "repo"), home: filepath.Join(root, "home")}
	for _, d := range []string{ws.dir, ws.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws.env = baseEnv(ws.home)
	// A watch daemon a session left running (after a turn's end, it goes
	// on) stops before its work tree is removed.
	t.Cleanup(func() { _, _ = runCmd(ws.dir, ws.env, nil, gitguardBin, "watch", "stop") })
	ws.git(t, "init", "-q", "-b", "main")
	names := make([]string, 0, len(initialFiles))
	for name := range initialFiles {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ws.write(t, name, initialFiles[name])
	}
	ws.git(t, "add", "-A")
	ws.git(t, "commit", "-qm", "initial")
	// A stash entry and a staged file the agent never touches.
	ws.write(t, "main.go", initialFiles["main.go"]+"// stashed\n")
	ws.git(t, "stash", "push", "-q", "-m", "user work in progress")
	ws.write(t, "staged.txt", "staged by the user\n")
	ws.git(t, "add", "staged.txt")
	ws.userState = ws.state(t)
	return ws
}

// baseEnv is the environment every command of a test runs in: sealed git
// settings, a private HOME, and nothing of the caller's (no real API keys).
func baseEnv(home string) []string {
	env := []string{
		"PATH=" + filepath.Dir(gitguardBin) + string(os.PathListSeparator) + cliBin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		"TMPDIR=" + os.TempDir(),
		"GITGUARD_WATCH_IDLE=1m",
	}
	return append(env, gittest.Env(home)...)
}

func (ws *workspace) git(t testing.TB, args ...string) string {
	t.Helper()
	out, err := runCmd(ws.dir, ws.env, nil, "git", args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (ws *workspace) write(t testing.TB, name, content string) {
	t.Helper()
	p := filepath.Join(ws.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (ws *workspace) read(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws.dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// state is the digest of what invariant 1 protects: refs outside the
// checkpoint namespace, HEAD, the index file, the stash, reflogs, config.
func (ws *workspace) state(t testing.TB) string {
	t.Helper()
	s, err := gittest.UserState(ws.dir, false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// gitguard runs the gitguard under test in the work tree.
func (ws *workspace) gitguard(t testing.TB, args ...string) string {
	t.Helper()
	out, err := runCmd(ws.dir, ws.env, nil, gitguardBin, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
