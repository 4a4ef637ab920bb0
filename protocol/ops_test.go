package protocol_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/protocol"
	"github.com/gitguard/gitguard/record"
)

// TestOps drives every op through Handle as a runtime would, and checks each
// result against git itself and each op against invariant 1.
func TestOps(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "one\n", "keep.txt": "mine\n"})
	run := record.RunID("agent-1")
	req := func(op string) protocol.Request { return protocol.Request{Op: op, Run: run} }

	var ver protocol.VersionDoc
	f.ok(protocol.Request{Op: "version"}, &ver)
	if ver != (protocol.VersionDoc{Version: 1, Protocol: 1, Gitguard: "test"}) {
		t.Errorf("version: %+v", ver)
	}

	var cp protocol.CheckpointDoc
	start := req("run.start")
	start.Step, start.Budget = "s1", &protocol.Budget{Tokens: ptr(int64(5))}
	f.ok(start, &cp)
	if cp.Run != run || cp.Kind != record.KindRunStart || cp.Step != "s1" || cp.Budget == nil || *cp.Budget.Tokens != 5 {
		t.Errorf("run.start: %+v", cp)
	}
	if got := f.repo.Git("rev-parse", "refs/agent-checkpoints/runs/"+string(run)); got != cp.Commit {
		t.Errorf("run.start commit %s, ref at %s", cp.Commit, got)
	}
	if got := f.repo.Git("rev-parse", "HEAD"); cp.HeadCommit != got {
		t.Errorf("head_commit %s, HEAD is %s", cp.HeadCommit, got)
	}

	var call protocol.CallDoc
	plan := req("call.plan")
	plan.Call, plan.Tool, plan.Idempotency, plan.Input = "c1", "write_file", "idempotent", "write a.txt"
	f.ok(plan, &call)
	if call.Call.Status != "planned" || call.Call.Idempotency != "idempotent" || call.Call.Tool != "write_file" {
		t.Errorf("call.plan: %+v", call.Call)
	}
	approve := req("call.approve")
	approve.Call, approve.By = "c1", "alice"
	f.ok(approve, &call)
	if call.Call.Status != "approved" || call.Call.ApprovedBy != "alice" || call.Call.Decision != "approved" {
		t.Errorf("call.approve: %+v", call.Call)
	}

	// Paths with a space and a leading dash, absolute or relative to the top.
	odd := []string{"dir/with space.txt", "-dash.txt", "b.txt"}
	cs := req("call.start")
	cs.Call, cs.Paths = "c1", []string{"a.txt", filepath.Join(f.repo.Dir, odd[0])}
	f.ok(cs, &call)
	if call.Call.Status != "started" || strings.Join(call.Call.Paths, ",") != "a.txt,"+odd[0] {
		t.Errorf("call.start: %+v", call.Call)
	}
	f.write("a.txt", "one\ntwo\n")
	f.write(odd[0], "spaced\n")
	cb := req("call.capture_before")
	cb.Call, cb.Paths = "c1", odd[1:]
	f.ok(cb, &call)
	for _, p := range odd[1:] {
		f.write(p, "odd\n")
	}
	ca := req("call.capture_after")
	ca.Call, ca.Paths = "c1", odd[1:2]
	f.ok(ca, &call)
	if len(call.Patches) != 1 || call.Patches[0].Path != odd[1] || call.Patches[0].Change != "A" {
		t.Errorf("call.capture_after: %+v", call.Patches)
	}
	fin := req("call.finish")
	fin.Call, fin.Result, fin.ExitCode = "c1", "wrote four files", ptr(0)
	f.ok(fin, &call)
	if call.Call.Status != "succeeded" || call.Call.Result != "wrote four files" || call.Call.ExitCode == nil || len(call.Patches) != 4 {
		t.Fatalf("call.finish: %+v %+v", call.Call, call.Patches)
	}
	for _, p := range call.Patches {
		if got := p.AfterMode + " " + p.AfterHash; got != f.blob(p.Path) {
			t.Errorf("patch %q: after %s, git hash-object says %s", p.Path, got, f.blob(p.Path))
		}
		if p.Path == "a.txt" && p.BeforeMode+" "+p.BeforeHash != f.headBlob("a.txt") {
			t.Errorf("patch a.txt: before %s %s, HEAD has %s", p.BeforeMode, p.BeforeHash, f.headBlob("a.txt"))
		}
		// The patch text is a blob git can read.
		if typ := f.repo.Git("cat-file", "-t", p.PatchRef); typ != "blob" {
			t.Errorf("patch_ref of %q is a %s", p.Path, typ)
		}
	}

	snap := req("snapshot")
	snap.Label = "after c1"
	f.ok(snap, &cp)
	if cp.Kind != record.KindSnapshot || cp.Label != "after c1" {
		t.Errorf("snapshot: %+v", cp)
	}
	if got := f.repo.Git("rev-parse", cp.Commit+"^{tree}"); got == "" {
		t.Errorf("snapshot commit %s has no tree", cp.Commit)
	}

	var st protocol.StatusDoc
	f.ok(req("status"), &st)
	if len(st.Paths) != 4 || len(st.Unrecorded) != 0 {
		t.Fatalf("status: %+v", st)
	}
	for _, p := range st.Paths {
		if p.State != "applied" || p.Current != f.blob(p.Path) || p.Call != "c1" {
			t.Errorf("status of %q: %+v (on disk %s)", p.Path, p, f.blob(p.Path))
		}
	}
	// An edit no call recorded shows up as unrecorded; status with a call
	// does not walk for it unless asked.
	f.write("keep.txt", "mine, edited\n")
	f.ok(req("status"), &st)
	if len(st.Unrecorded) != 1 || st.Unrecorded[0].Path != "keep.txt" || st.Unrecorded[0].Status != "M" {
		t.Errorf("unrecorded: %+v", st.Unrecorded)
	}
	sc := req("status")
	sc.Call = "c1"
	f.ok(sc, &st)
	if len(st.Unrecorded) != 0 || len(st.Paths) != 4 {
		t.Errorf("status of c1: %+v", st)
	}
	sc.Unrecorded = ptr(true)
	f.ok(sc, &st)
	if len(st.Unrecorded) != 1 {
		t.Errorf("status of c1 with unrecorded: %+v", st)
	}

	var diff protocol.DiffDoc
	d := req("diff")
	d.Call = "c1"
	f.ok(d, &diff)
	if len(diff.Files) != 4 {
		t.Fatalf("diff: %+v", diff)
	}
	// git itself accepts every patch, reversed, against the work tree.
	for _, file := range diff.Files {
		patch := filepath.Join(t.TempDir(), "p.diff")
		if err := os.WriteFile(patch, []byte(file.Patch), 0o644); err != nil {
			t.Fatal(err)
		}
		f.repo.Git("apply", "--check", "--reverse", patch)
		if a, _ := protocol.CountLines([]byte(file.Patch)); a != file.Added {
			t.Errorf("diff of %q: added %d, counted %d", file.Path, file.Added, a)
		}
	}
	d.Call, d.Since = "", "ckpt_001"
	var since protocol.DiffDoc
	f.ok(d, &since)
	if len(since.Files) != 4 {
		t.Errorf("diff since ckpt_001: %+v", since)
	}

	var ledger protocol.LedgerDoc
	f.ok(req("ledger"), &ledger)
	if len(ledger.Calls) != 1 || ledger.Calls[0].CallID != "c1" || ledger.Calls[0].Replay != "allowed" || len(ledger.Calls[0].Changes) != 4 {
		t.Errorf("ledger: %+v", ledger)
	}

	var res protocol.ResumeDoc
	rs := req("resume")
	rs.DryRun = true
	f.ok(rs, &res)
	if res.Run != run || len(res.Calls) != 1 || len(res.Calls[0].Applied) != 4 || !strings.Contains(res.Brief, "c1") {
		t.Errorf("resume: %+v", res)
	}

	var undo protocol.UndoDoc
	u := req("undo")
	u.Call, u.DryRun = "c1", true
	f.ok(u, &undo)
	if !undo.DryRun || undo.UndoCall != "" || len(undo.Paths) != 4 {
		t.Errorf("undo dry run: %+v", undo)
	}
	u.DryRun = false
	f.ok(u, &undo)
	if undo.UndoCall == "" || record.JoinCallIDs(undo.Undone, ",") != "c1" || undo.Conflicts != 0 {
		t.Errorf("undo: %+v", undo)
	}
	if got := f.read("a.txt"); got != "one\n" {
		t.Errorf("a.txt after undo: %q", got)
	}
	for _, p := range odd {
		if got := f.read(p); got != "<absent>" {
			t.Errorf("%q after undo: %q", p, got)
		}
	}
	if got := f.read("keep.txt"); got != "mine, edited\n" {
		t.Errorf("undo touched the user's keep.txt: %q", got)
	}
	if out := f.repo.Git("status", "--porcelain"); out != " M keep.txt" {
		t.Errorf("git status after undo:\n%s", out)
	}

	var redo protocol.UndoDoc
	f.ok(req("redo"), &redo)
	if record.JoinCallIDs(redo.Undone, ",") != string(undo.UndoCall) || !strings.HasPrefix(string(redo.UndoCall), "redo-") {
		t.Errorf("redo: %+v", redo)
	}
	if got := f.read("a.txt"); got != "one\ntwo\n" {
		t.Errorf("a.txt after redo: %q", got)
	}
	for _, p := range odd {
		if f.read(p) == "<absent>" {
			t.Errorf("%q missing after redo", p)
		}
	}

	f.ok(req("run.finish"), &cp)
	if cp.Kind != record.KindRunFinish || !cp.RunFinished {
		t.Errorf("run.finish: %+v", cp)
	}
}

// TestDeniedCall: a denied call cannot start; the answer carries the
// library's error, and the ledger says the call must not be replayed.
func TestDeniedCall(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "one\n"})
	f.srv.Run = "r1" // the server's default run
	var cp protocol.CheckpointDoc
	f.ok(protocol.Request{Op: "run.start"}, &cp)
	var call protocol.CallDoc
	f.ok(protocol.Request{Op: "call.plan", Call: "c2", Tool: "send_email", Idempotency: "non_idempotent",
		SideEffects: []string{"sends an email"}, Compensation: "send a correction"}, &call)
	f.ok(protocol.Request{Op: "call.deny", Call: "c2", By: "bob", Reason: "no email"}, &call)
	if call.Run != "r1" || call.Call.Status != "denied" || call.Call.DecisionReason != "no email" {
		t.Errorf("call.deny: %+v", call)
	}
	refs := f.agentRefs()
	f.fails(protocol.Request{Op: "call.start", Call: "c2"}, 5, gitguard.ErrCallState, "call c2 was denied: call is in the wrong state")
	if got := f.agentRefs(); got != refs {
		t.Errorf("a refused call.start moved the run:\n%s\n%s", refs, got)
	}
	var ledger protocol.LedgerDoc
	f.ok(protocol.Request{Op: "ledger"}, &ledger)
	if len(ledger.Calls) != 1 || ledger.Calls[0].Replay != "forbidden" {
		t.Errorf("ledger: %+v", ledger)
	}
}

// TestBadPaths: paths outside the work tree, into .git (in any spelling) or
// that the records cannot carry (not UTF-8) are refused before anything is
// recorded. A newline is a legal name, as in git.
func TestBadPaths(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "one\n"})
	var cp protocol.CheckpointDoc
	f.ok(protocol.Request{Op: "run.start", Run: "r1"}, &cp)
	refs := f.agentRefs()
	for _, tc := range []struct {
		path   string
		target error
		msg    string
	}{
		{"../outside.txt", gitguard.ErrOutsideWorkTree, "../outside.txt: path is outside the work tree (" + f.g.WorkTree() + ")"},
		{".git/config", record.ErrBadPath, `unsafe path ".git/config": .git component`},
		{"GIT~1/config", record.ErrBadPath, `unsafe path "GIT~1/config": another spelling of .git`},
		{"bad\xff.txt", record.ErrBadPath, `unsafe path "bad\377.txt": name is not valid UTF-8`},
	} {
		for _, op := range []string{"call.start", "call.capture_before"} {
			resp := f.handle(protocol.Request{Op: op, Run: "r1", Call: "c1", Tool: "t", Paths: []string{tc.path}})
			checkFailure(t, resp, 5, tc.target, tc.msg)
		}
	}
	if got := f.agentRefs(); got != refs {
		t.Errorf("refused paths moved the run:\n%s\n%s", refs, got)
	}
}

// TestCallFindsItsRun: status, diff and undo of a call name no run and find
// the run that holds the call, as the CLI does, even when another run is
// active; a call no run has is an unknown call.
func TestCallFindsItsRun(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "one\n"})
	var call protocol.CallDoc
	f.ok(protocol.Request{Op: "call.start", Run: "r1", Call: "c1", Tool: "t", Paths: []string{"a.txt"}}, &call)
	f.write("a.txt", "two\n")
	f.ok(protocol.Request{Op: "call.finish", Run: "r1", Call: "c1"}, &call)
	var cp protocol.CheckpointDoc
	f.ok(protocol.Request{Op: "run.finish", Run: "r1"}, &cp)
	f.ok(protocol.Request{Op: "run.start", Run: "r2"}, &cp)

	var st protocol.StatusDoc
	f.ok(protocol.Request{Op: "status", Call: "c1"}, &st)
	if st.Run != "r1" || len(st.Paths) != 1 || st.Paths[0].State != "applied" {
		t.Errorf("status of c1: %+v", st)
	}
	var diff protocol.DiffDoc
	f.ok(protocol.Request{Op: "diff", Call: "c1"}, &diff)
	if diff.Run != "r1" || len(diff.Files) != 1 {
		t.Errorf("diff of c1: %+v", diff)
	}
	var undo protocol.UndoDoc
	f.ok(protocol.Request{Op: "undo", Call: "c1", DryRun: true}, &undo)
	if undo.Run != "r1" || len(undo.Undone) != 1 {
		t.Errorf("undo of c1: %+v", undo)
	}
	// Without a call, the active run.
	f.ok(protocol.Request{Op: "status"}, &st)
	if st.Run != "r2" || len(st.Paths) != 0 {
		t.Errorf("status of the active run: %+v", st)
	}
	resp := f.handle(protocol.Request{Op: "status", Call: "c9"})
	if resp.OK || !errors.Is(resp.Err, gitguard.ErrUnknownCall) {
		t.Errorf("status of a call no run has: %+v", resp)
	}
}
