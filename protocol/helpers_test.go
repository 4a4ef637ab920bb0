package protocol_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/protocol"
)

// fixture is a throwaway repository with one commit, a guard on it and a
// protocol server without a default run.
type fixture struct {
	t     *testing.T
	repo  *gittest.Repo
	g     *gitguard.Guard
	srv   *protocol.Server
	ctx   context.Context
	state string // user state (invariant 1) when the fixture started
}

func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	r := gittest.New(t)
	for p, c := range files {
		r.Write(p, c)
	}
	r.Commit("init")
	f := &fixture{t: t, repo: r, ctx: context.Background(), srv: &protocol.Server{Gitguard: "test"}}
	f.state = f.userState()
	f.g = f.open()
	return f
}

// open opens a guard on the fixture's repository, closed at cleanup.
func (f *fixture) open() *gitguard.Guard {
	f.t.Helper()
	g, err := gitguard.Open(f.ctx, f.repo.Dir, gitguard.Options{})
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { g.Close() })
	return g
}

// opener opens the fixture's repository for Serve, one guard per request.
func (f *fixture) opener(ctx context.Context) (*gitguard.Guard, error) {
	return gitguard.Open(ctx, f.repo.Dir, gitguard.Options{})
}

func (f *fixture) userState() string {
	f.t.Helper()
	s, err := gittest.UserState(f.repo.Dir, false)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

func (f *fixture) worktree() string {
	f.t.Helper()
	s, err := gittest.WorktreeDigest(f.repo.Dir)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

// checkInvariant1 asserts that refs outside the namespace, HEAD, the index,
// the stash, reflogs and config are as they were when the fixture started.
func (f *fixture) checkInvariant1(what string) {
	f.t.Helper()
	if got := f.userState(); got != f.state {
		f.t.Errorf("%s broke invariant 1:\n%s", what, gittest.Diff(f.state, got))
	}
}

// writesFiles are the ops that may write the agent's files.
var writesFiles = map[string]bool{"undo": true, "redo": true}

// handle carries out req with Handle and checks invariant 1 and, for every
// op but undo and redo (and their dry runs), that the work tree is as it was.
func (f *fixture) handle(req protocol.Request) protocol.Response {
	f.t.Helper()
	before := f.worktree()
	resp := f.srv.Handle(f.ctx, f.g, req)
	f.checkInvariant1("op " + req.Op)
	if (!writesFiles[req.Op] || req.DryRun) && f.worktree() != before {
		f.t.Errorf("op %s changed the work tree:\n%s", req.Op, gittest.Diff(before, f.worktree()))
	}
	return resp
}

// ok carries out req, requires success and decodes the result into doc.
func (f *fixture) ok(req protocol.Request, doc any) {
	f.t.Helper()
	resp := f.handle(req)
	if !resp.OK {
		f.t.Fatalf("op %s: %s (hint %q, exit %d)", req.Op, resp.Error, resp.Hint, resp.ExitCode)
	}
	if resp.Error != "" || resp.Hint != "" || resp.ExitCode != 0 || resp.Err != nil {
		f.t.Errorf("op %s succeeded with error fields set: %+v", req.Op, resp)
	}
	decode(f.t, resp.Result, doc)
}

// fails carries out req and requires a failure with exit code code whose
// error is (or wraps) target and whose message is msg.
func (f *fixture) fails(req protocol.Request, code int, target error, msg string) protocol.Response {
	f.t.Helper()
	resp := f.handle(req)
	checkFailure(f.t, resp, code, target, msg)
	return resp
}

func checkFailure(t *testing.T, resp protocol.Response, code int, target error, msg string) {
	t.Helper()
	if resp.OK {
		t.Fatalf("want a failure (%s), got success: %s", msg, resp.Result)
	}
	if resp.ExitCode != code {
		t.Errorf("exit code %d, want %d (%s)", resp.ExitCode, code, resp.Error)
	}
	if target != nil && !errors.Is(resp.Err, target) {
		t.Errorf("error %v does not wrap %v", resp.Err, target)
	}
	if resp.Error != msg {
		t.Errorf("error message\n got %q\nwant %q", resp.Error, msg)
	}
}

func decode(t *testing.T, raw json.RawMessage, doc any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(doc); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
}

func (f *fixture) write(p, content string) { f.t.Helper(); f.repo.Write(p, content) }

func (f *fixture) read(p string) string {
	f.t.Helper()
	data, err := os.ReadFile(filepath.Join(f.repo.Dir, p))
	if os.IsNotExist(err) {
		return "<absent>"
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return string(data)
}

// blob is git's "MODE HASH" of a work-tree file as the documents write it.
func (f *fixture) blob(p string) string {
	f.t.Helper()
	return "100644 " + f.repo.Git("hash-object", "--no-filters", "--", p)
}

// headBlob is "MODE HASH" of p in HEAD, as git ls-tree reports it.
func (f *fixture) headBlob(p string) string {
	f.t.Helper()
	out := f.repo.Git("ls-tree", "HEAD", "--", p) // "100644 blob HASH\tPATH"
	fields := strings.Fields(out)
	if len(fields) < 3 {
		f.t.Fatalf("ls-tree HEAD %s: %q", p, out)
	}
	return fields[0] + " " + fields[2]
}

// agentRefs lists the refs under refs/agent-checkpoints/ with their ids.
func (f *fixture) agentRefs() string {
	f.t.Helper()
	return f.repo.Git("for-each-ref", "--format=%(objectname) %(refname)", "refs/agent-checkpoints/")
}

func ptr[T any](v T) *T { return &v }
