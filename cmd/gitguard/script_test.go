package main

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/internal/hookclient"
)

// sealedM runs the tests (not the commands testscript.Main dispatches to)
// in one sealed environment, so that tests building repositories with
// gittest.New may run in parallel.
type sealedM struct{ m *testing.M }

func (s sealedM) Run() int {
	// The tests mostly wait for the gitguard and git processes they start:
	// unless -parallel says otherwise, run more of them at once than there
	// are processors.
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		if err := flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0))); err != nil {
			panic(err)
		}
	}
	return gittest.Main(s.m)
}

func TestMain(m *testing.M) {
	testscript.Main(sealedM{m}, map[string]func(){
		"gitguard": func() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
		// git runs "git guard ..." as git-guard from PATH (cmd_completion.go).
		"git-guard": func() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
		"gitguard-hook": func() {
			os.Exit(hookclient.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
		},
	})
}

func TestScript(t *testing.T) {
	gittest.RequireGit(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		Setup:               scriptSetup,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("GITGUARD_UPDATE") != "",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"userstate":  cmdUserState,
			"oracletree": cmdOracleTree,
			"gitserver":  cmdGitServer,
		},
	})
}

func scriptSetup(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, ".home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	for _, kv := range gittest.Env(home) {
		k, v, _ := strings.Cut(kv, "=")
		env.Setenv(k, v)
	}
	env.Setenv("GITGUARD_RUN", "")
	// A watch daemon a hook starts outlives its script by this much at most.
	env.Setenv("GITGUARD_WATCH_IDLE", "1m")
	return nil
}

// cmdUserState implements "userstate save|check [-w] NAME": it records or
// compares the digest of everything invariant 1 protects (refs outside the
// namespace, HEAD, the index file, the stash, reflogs, config) and with -w
// every work-tree file, in the current directory's repository.
func cmdUserState(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("userstate does not take !")
	}
	worktree := false
	if len(args) > 1 && args[1] == "-w" {
		worktree = true
		args = append(args[:1], args[2:]...)
	}
	if len(args) != 2 || (args[0] != "save" && args[0] != "check") {
		ts.Fatalf("usage: userstate save|check [-w] NAME")
	}
	got, err := gittest.UserState(ts.MkAbs("."), worktree)
	ts.Check(err)
	file := filepath.Join(ts.Getenv("WORK"), ".userstate-"+args[1])
	if args[0] == "save" {
		ts.Check(os.WriteFile(file, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(file)
	ts.Check(err)
	if string(want) != got {
		ts.Fatalf("user state changed (invariant 1):\n%s", gittest.Diff(string(want), got))
	}
}

// cmdOracleTree implements "oracletree CKPT|@FILE": the checkpoint's work-tree
// tree must be exactly the tree `git add -A` into a scratch index writes.
// The scratch index keeps the index's mtime (cp -p): a newer mtime would
// make git trust same-second, same-size edits it must re-hash.
func cmdOracleTree(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: oracletree CKPT|@FILE")
	}
	spec := args[0]
	if file, ok := strings.CutPrefix(spec, "@"); ok { // a commit id a command wrote to FILE
		spec = strings.TrimSpace(ts.ReadFile(file))
	}
	ts.Check(ts.Exec("gitguard", "show", "--json", spec))
	var rec struct {
		WorktreeTree string `json:"worktree_tree"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile("stdout")), &rec))
	scratch := filepath.Join(ts.Getenv("WORK"), ".oracle-index")
	os.Remove(scratch)
	ts.Check(ts.Exec("sh", "-c", `gd=$(git rev-parse --git-dir) && { [ ! -f "$gd/index" ] || cp -p "$gd/index" "$1"; } && GIT_INDEX_FILE="$1" git add -A && GIT_INDEX_FILE="$1" git write-tree`, "sh", scratch))
	want := strings.TrimSpace(ts.ReadFile("stdout"))
	if (want == rec.WorktreeTree) == neg {
		ts.Fatalf("checkpoint work tree %s, git add -A gives %s", rec.WorktreeTree, want)
	}
}
