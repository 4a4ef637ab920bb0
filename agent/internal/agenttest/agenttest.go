// Package agenttest drives agent adapters in process against real
// throwaway repositories: a payload goes through the adapter's Read and
// agent.Handle exactly as "gitguard hook AGENT" does, and the results are
// checked with git itself.
package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// Env is a repository with files committed and the user state (invariant
// 1 of the design) recorded.
type Env struct {
	T     testing.TB
	Repo  *gittest.Repo
	Ctx   context.Context
	state string
}

// New builds a repository holding files, committed.
func New(t testing.TB, files map[string]string) *Env {
	t.Helper()
	r := gittest.New(t)
	for p, c := range files {
		r.Write(p, c)
	}
	r.Commit("init")
	e := &Env{T: t, Repo: r, Ctx: context.Background()}
	e.state = e.userState()
	return e
}

func (e *Env) userState() string {
	e.T.Helper()
	s, err := gittest.UserState(e.Repo.Dir, false)
	if err != nil {
		e.T.Fatal(err)
	}
	return s
}

// CheckUserState fails the test if anything the user owns changed.
func (e *Env) CheckUserState() {
	e.T.Helper()
	if got := e.userState(); got != e.state {
		e.T.Errorf("user state changed (invariant 1):\n%s", gittest.Diff(e.state, got))
	}
}

// Open opens the repository the way the hook does, without a watch daemon.
func (e *Env) Open(ctx context.Context, dir string) (*gitguard.Guard, error) {
	return gitguard.Open(ctx, dir, gitguard.Options{Workspace: gitguard.WorkspaceOptions{UseDaemon: false}})
}

// Reader is an adapter's Read with its options bound.
type Reader func(io.Reader) (*agent.Event, error)

// Hook sends payload (with @REPO@ replaced by the repository's folder)
// through read and agent.Handle, and returns the event and result. An
// error of either fails the test unless wantErr.
func (e *Env) Hook(read Reader, payload string) (*agent.Event, agent.Result) {
	e.T.Helper()
	ev, res, err := e.TryHook(read, payload)
	if err != nil {
		e.T.Fatalf("hook %s: %v", short(payload), err)
	}
	return ev, res
}

// TryHook is Hook returning the error.
func (e *Env) TryHook(read Reader, payload string) (*agent.Event, agent.Result, error) {
	e.T.Helper()
	payload = strings.ReplaceAll(payload, "@REPO@", jsonEscape(e.Repo.Dir))
	ev, err := read(strings.NewReader(payload))
	if err != nil {
		return nil, agent.Result{}, err
	}
	res, err := agent.Handle(e.Ctx, ev, agent.Options{Open: e.Open, Dir: "."})
	return ev, res, err
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func short(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// Guard opens the repository for checks; closed at cleanup.
func (e *Env) Guard() *gitguard.Guard {
	e.T.Helper()
	g, err := e.Open(e.Ctx, e.Repo.Dir)
	if err != nil {
		e.T.Fatal(err)
	}
	e.T.Cleanup(func() { g.Close() })
	return g
}

// Run reads run id with every call.
func (e *Env) Run(id string) *gitguard.Run {
	e.T.Helper()
	runID, err := record.ParseRunID(id)
	if err != nil {
		e.T.Fatal(err)
	}
	run, err := e.Guard().ReadRun(e.Ctx, runID)
	if err != nil {
		e.T.Fatalf("read run %s: %v", id, err)
	}
	return run
}

// Call returns call id of run, failing when it is missing.
func (e *Env) Call(run string, id record.CallID) *record.Call {
	e.T.Helper()
	c := e.Run(run).Calls[id]
	if c == nil {
		var ids []string
		for k := range e.Run(run).Calls {
			ids = append(ids, string(k))
		}
		e.T.Fatalf("run %s has no call %s (calls: %v)", run, id, ids)
	}
	return c
}

// PatchPaths returns the paths of a call's patches, sorted.
func PatchPaths(c *record.Call) []string {
	var out []string
	for _, p := range c.Patches {
		out = append(out, p.Path)
	}
	return out
}

// CheckPatch checks a call's patch of path against git: its after hash is
// what `git hash-object` says of the file now (or absent), its before hash
// is want's blob (or absent when before is "").
func (e *Env) CheckPatch(c *record.Call, path string, before *string) {
	e.T.Helper()
	var p *record.FilePatch
	for i := range c.Patches {
		if c.Patches[i].Path == path {
			p = &c.Patches[i]
		}
	}
	if p == nil {
		e.T.Errorf("call %s has no patch of %s (has %v)", c.Ledger.CallID, path, PatchPaths(c))
		return
	}
	if want := e.hashOf(path, nil); p.AfterHash.String() != want {
		e.T.Errorf("%s after = %s, git hash-object says %s", path, p.AfterHash, want)
	}
	if want := e.hashOf(path, before); before != nil && p.BeforeHash.String() != want {
		e.T.Errorf("%s before = %s, want %s", path, p.BeforeHash, want)
	}
	if before == nil && p.Before().Exists() {
		e.T.Errorf("%s before = %s, want absent", path, p.BeforeHash)
	}
}

// hashOf hashes content (or the file when content is nil) with git; an
// absent file is the zero hash.
func (e *Env) hashOf(path string, content *string) string {
	e.T.Helper()
	if content == nil {
		if _, err := os.Lstat(filepath.Join(e.Repo.Dir, path)); errors.Is(err, os.ErrNotExist) {
			return strings.Repeat("0", 40)
		}
		return e.Repo.Git("hash-object", "--", path)
	}
	tmp := filepath.Join(e.T.TempDir(), "blob")
	if err := os.WriteFile(tmp, []byte(*content), 0o644); err != nil {
		e.T.Fatal(err)
	}
	return e.Repo.Git("hash-object", "--no-filters", tmp)
}

// S is a helper for CheckPatch's before.
func S(s string) *string { return &s }

// Undo undoes one call and checks nothing else changed but its paths.
func (e *Env) Undo(run, call string) *gitguard.UndoResult {
	e.T.Helper()
	runID, err := record.ParseRunID(run)
	if err != nil {
		e.T.Fatal(err)
	}
	callID, err := record.ParseCallID(call)
	if err != nil {
		e.T.Fatal(err)
	}
	res, err := e.Guard().Undo(e.Ctx, runID, gitguard.UndoOptions{Call: callID})
	if err != nil {
		e.T.Fatalf("undo %s: %v", call, err)
	}
	return res
}

// Status is `git status --porcelain` of the repository.
func (e *Env) Status() string { return e.Repo.Git("status", "--porcelain") }

// File reads a work-tree file ("" when absent).
func (e *Env) File(path string) string {
	b, err := os.ReadFile(filepath.Join(e.Repo.Dir, path))
	if err != nil {
		return ""
	}
	return string(bytes.Clone(b))
}

// HookReadOnly sends payload as Hook does and fails the test unless the
// event is ignored without the repository being opened (and so without
// running git or capturing anything).
func (e *Env) HookReadOnly(read Reader, payload string) {
	e.T.Helper()
	payload = strings.ReplaceAll(payload, "@REPO@", jsonEscape(e.Repo.Dir))
	ev, err := read(strings.NewReader(payload))
	if err != nil {
		e.T.Fatalf("hook %s: %v", short(payload), err)
	}
	if ev.Kind != agent.Ignore || ev.Warning != "" {
		e.T.Errorf("read-only tool %q: kind %d, warning %q; want it ignored quietly", ev.Tool, ev.Kind, ev.Warning)
	}
	opened := false
	_, err = agent.Handle(e.Ctx, ev, agent.Options{Dir: ".", Open: func(ctx context.Context, dir string) (*gitguard.Guard, error) {
		opened = true
		return e.Open(ctx, dir)
	}})
	if err != nil || opened {
		e.T.Errorf("read-only tool %s: err %v, repository opened %v", short(payload), err, opened)
	}
}
