package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/mcpserver"
	"github.com/gitguard/gitguard/record"
)

type fixture struct {
	t    *testing.T
	ctx  context.Context
	repo *gittest.Repo
	cs   *mcp.ClientSession
}

func open(ctx context.Context, dir string) (*gitguard.Guard, error) {
	return gitguard.Open(ctx, dir, gitguard.Options{})
}

// newFixture builds a repository where the active run r1 has two calls (the
// second edits a.txt) and another run r2 has a call of its own, then
// connects the SDK's client to the server in process.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	r := gittest.New(t)
	r.Write("a.txt", "one\ntwo\nthree\n")
	r.Write("b.txt", "b\n")
	r.Commit("init")
	g, err := open(ctx, r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	call := func(run record.RunID, id record.CallID, paths []string, change func()) {
		t.Helper()
		if _, err := g.CallStart(ctx, run, gitguard.CallOptions{CallID: id, Tool: "Edit", Paths: paths}); err != nil {
			t.Fatal(err)
		}
		change()
		if _, err := g.CallFinish(ctx, run, id, gitguard.FinishOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// r2 first, finished, so that r1 is the active run.
	if _, err := g.StartRun(ctx, "r2", gitguard.CheckpointOptions{}); err != nil {
		t.Fatal(err)
	}
	call("r2", "other-run-call", []string{"b.txt"}, func() { r.Write("b.txt", "b from r2\n") })
	if _, err := g.FinishRun(ctx, "r2", gitguard.CheckpointOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.StartRun(ctx, "r1", gitguard.CheckpointOptions{}); err != nil {
		t.Fatal(err)
	}
	call("r1", "edit-1", []string{"a.txt"}, func() { r.Write("a.txt", "ONE\ntwo\nthree\n") })
	// The user edits another line of the same file afterwards.
	r.Write("a.txt", "ONE\ntwo\nthree, by the user\n")

	srv := mcpserver.New(mcpserver.Options{Open: func(ctx context.Context) (*gitguard.Guard, error) { return open(ctx, r.Dir) }})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &fixture{t: t, ctx: ctx, repo: r, cs: cs}
}

// call calls tool and decodes its structured result into out; it returns
// the result's error text, or "".
func (f *fixture) call(tool string, args map[string]any, out any) string {
	f.t.Helper()
	res, err := f.cs.CallTool(f.ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		f.t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		var msg []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				msg = append(msg, tc.Text)
			}
		}
		return strings.Join(msg, " ")
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		f.t.Fatalf("%s: %v in %s", tool, err, b)
	}
	return ""
}

func (f *fixture) file(p string) string {
	b, err := os.ReadFile(filepath.Join(f.repo.Dir, p))
	if err != nil {
		return ""
	}
	return string(b)
}

func TestMCPReadingTools(t *testing.T) {
	f := newFixture(t)
	before, err := gittest.UserState(f.repo.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for tool, err := range f.cs.Tools(f.ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool.Name)
	}
	if got := strings.Join(tools, " "); got != "checkpoint diff ledger redo resume status undo" {
		t.Errorf("tools: %s", got)
	}

	var st mcpserver.StatusOut
	if e := f.call("status", nil, &st); e != "" {
		t.Fatal(e)
	}
	if st.Run != "r1" || len(st.Paths) != 1 || st.Paths[0].Path != "a.txt" || st.Paths[0].State != "conflicted" {
		t.Errorf("status: %+v", st)
	}
	var d mcpserver.DiffOut
	if e := f.call("diff", map[string]any{"call": "edit-1"}, &d); e != "" {
		t.Fatal(e)
	}
	if !strings.Contains(d.Patch, "-one\n+ONE\n") || strings.Contains(d.Patch, "by the user") {
		t.Errorf("diff:\n%s", d.Patch)
	}
	var l mcpserver.LedgerOut
	if e := f.call("ledger", nil, &l); e != "" {
		t.Fatal(e)
	}
	if len(l.Calls) != 1 || l.Calls[0].Call != "edit-1" || l.Calls[0].Files != 1 {
		t.Errorf("ledger: %+v", l)
	}
	var r mcpserver.ResumeOut
	if e := f.call("resume", nil, &r); e != "" {
		t.Fatal(e)
	}
	if !strings.Contains(r.Brief, "Edit (edit-1) succeeded") || !strings.Contains(r.Brief, "a.txt was also edited by someone else after edit-1; their edits do not overlap it") {
		t.Errorf("brief:\n%s", r.Brief)
	}
	res, err := f.cs.ReadResource(f.ctx, &mcp.ReadResourceParams{URI: mcpserver.ResumeURI})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != r.Brief {
		t.Errorf("resume resource: %v %+v", err, res)
	}
	// The run's other calls are not reachable: r2's call is unknown here.
	if e := f.call("diff", map[string]any{"call": "other-run-call"}, &d); e == "" {
		t.Error("diff of another run's call answered")
	}
	after, err := gittest.UserState(f.repo.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Errorf("reading tools changed user state:\n%s", gittest.Diff(before, after))
	}
}

func TestMCPUndoRedo(t *testing.T) {
	f := newFixture(t)
	before, err := gittest.UserState(f.repo.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	var cp mcpserver.CheckpointOut
	if e := f.call("checkpoint", map[string]any{"label": "before undo"}, &cp); e != "" {
		t.Fatal(e)
	}
	if cp.Run != "r1" || f.repo.Git("rev-parse", "refs/agent-checkpoints/runs/r1") != cp.Commit {
		t.Errorf("checkpoint %+v not the tip of r1", cp)
	}

	// A dry run by default: the plan, nothing written.
	var u mcpserver.UndoOut
	if e := f.call("undo", map[string]any{"call": "edit-1"}, &u); e != "" {
		t.Fatal(e)
	}
	if !u.DryRun || len(u.Paths) != 1 || u.Paths[0].Written || f.file("a.txt") != "ONE\ntwo\nthree, by the user\n" {
		t.Errorf("dry run: %+v, a.txt %q", u, f.file("a.txt"))
	}
	// Confirmed: the agent's line goes, the user's stays.
	if e := f.call("undo", map[string]any{"call": "edit-1", "confirm": true}, &u); e != "" {
		t.Fatal(e)
	}
	if u.DryRun || u.UndoCall == "" || f.file("a.txt") != "one\ntwo\nthree, by the user\n" {
		t.Errorf("undo: %+v, a.txt %q", u, f.file("a.txt"))
	}
	// Never outside its run.
	if e := f.call("undo", map[string]any{"call": "other-run-call", "confirm": true}, &u); !strings.Contains(e, "only calls of this run") {
		t.Errorf("undo of another run's call: %q", e)
	}
	if f.file("b.txt") != "b from r2\n" {
		t.Errorf("b.txt = %q", f.file("b.txt"))
	}
	var rd mcpserver.UndoOut
	if e := f.call("redo", map[string]any{"confirm": true}, &rd); e != "" {
		t.Fatal(e)
	}
	if f.file("a.txt") != "ONE\ntwo\nthree, by the user\n" {
		t.Errorf("redo: a.txt %q", f.file("a.txt"))
	}
	if e := f.call("undo", map[string]any{"call": " "}, &u); !strings.Contains(e, "needs the call") {
		t.Errorf("undo without a call: %q", e)
	}
	after, err := gittest.UserState(f.repo.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Errorf("undo changed user state beyond the files:\n%s", gittest.Diff(before, after))
	}
}

func TestMCPNoRun(t *testing.T) {
	ctx := context.Background()
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("init")
	srv := mcpserver.New(mcpserver.Options{Open: func(ctx context.Context) (*gitguard.Guard, error) { return open(ctx, r.Dir) }})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "status", Arguments: map[string]any{}})
	if err != nil || !res.IsError {
		t.Fatalf("status without a run: %v %+v", err, res)
	}
	if tc, _ := res.Content[0].(*mcp.TextContent); tc == nil || !strings.Contains(tc.Text, "no run to serve") {
		t.Errorf("message: %+v", res.Content)
	}
}
