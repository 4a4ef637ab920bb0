package protocol_test

import (
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/protocol"
	"github.com/gitguard/gitguard/record"
)

// TestBadOptions: a bad option is a usage error (exit code 2) whose message
// is that of the options' Validate, the check the CLI runs on its flags;
// nothing is recorded.
func TestBadOptions(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "one\n"})
	var cp protocol.CheckpointDoc
	f.ok(protocol.Request{Op: "run.start", Run: "r1"}, &cp)
	var call protocol.CallDoc
	f.ok(protocol.Request{Op: "call.start", Run: "r1", Call: "c1", Tool: "t", Paths: []string{"a.txt"}}, &call)
	f.write("a.txt", "two\n")
	f.ok(protocol.Request{Op: "call.finish", Run: "r1", Call: "c1"}, &call)
	refs := f.agentRefs()
	files := f.worktree()

	checkpoint := &record.Entry{}
	cases := []struct {
		name string
		req  protocol.Request
		want error // what Validate says of the same options
	}{
		{"undo call and all", protocol.Request{Op: "undo", Call: "c1", All: true},
			gitguard.UndoOptions{Call: "c1", WholeRun: true}.Validate()},
		{"undo call and to", protocol.Request{Op: "undo", Call: "c1", To: "ckpt_001"},
			gitguard.UndoOptions{Call: "c1", To: checkpoint}.Validate()},
		{"undo to and all", protocol.Request{Op: "undo", To: "ckpt_001", All: true},
			gitguard.UndoOptions{To: checkpoint, WholeRun: true}.Validate()},
		{"undo bad glob", protocol.Request{Op: "undo", Globs: []string{"[x"}},
			gitguard.UndoOptions{Globs: []string{"[x"}}.Validate()},
		{"redo all", protocol.Request{Op: "redo", All: true},
			gitguard.UndoOptions{WholeRun: true}.ValidateRedo()},
		{"redo to", protocol.Request{Op: "redo", To: "ckpt_001", DryRun: true},
			gitguard.UndoOptions{To: checkpoint}.ValidateRedo()},
		{"diff call and since", protocol.Request{Op: "diff", Call: "c1", Since: "ckpt_001"},
			gitguard.DiffOptions{Call: "c1", Since: checkpoint}.Validate()},
		{"diff bad glob", protocol.Request{Op: "diff", Globs: []string{"a/[b"}},
			gitguard.DiffOptions{Globs: []string{"a/[b"}}.Validate()},
		{"plan bad idempotency", protocol.Request{Op: "call.plan", Call: "c2", Idempotency: "sometimes"},
			gitguard.CallOptions{CallID: "c2", Idempotency: "sometimes"}.Validate()},
		{"plan bad replay", protocol.Request{Op: "call.plan", Call: "c2", Replay: "maybe"},
			gitguard.CallOptions{CallID: "c2", ReplayPolicy: "maybe"}.Validate()},
		{"plan bad call id", protocol.Request{Op: "call.plan", Call: "bad id"},
			gitguard.CallOptions{CallID: "bad id"}.Validate()},
		{"start bad glob", protocol.Request{Op: "call.start", Call: "c2", Globs: []string{"[x"}},
			gitguard.CallOptions{CallID: "c2", Globs: []string{"[x"}}.Validate()},
		{"start call id with a slash", protocol.Request{Op: "call.start", Call: "../c2"},
			gitguard.CallOptions{CallID: "../c2"}.Validate()},
		{"finish bad status", protocol.Request{Op: "call.finish", Call: "c1", Status: "bogus"},
			gitguard.FinishOptions{Status: "bogus"}.Validate()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.want == nil {
				t.Fatal("Validate accepts these options; the case tests nothing")
			}
			c.req.Run = "r1"
			f.t = t
			f.fails(c.req, 2, gitguard.ErrUsage, c.want.Error())
		})
	}
	f.t = t
	if got := f.agentRefs(); got != refs {
		t.Errorf("bad options moved the run:\n%s\n%s", refs, got)
	}
	if got := f.worktree(); got != files {
		t.Errorf("bad options changed files")
	}
}

// TestUndoConflicts: an undo that leaves a path conflicted answers exit code
// 1 with the plan as result, keeps the user's edit, and is recorded.
func TestUndoConflicts(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	var call protocol.CallDoc
	f.ok(protocol.Request{Op: "call.start", Run: "r1", Call: "c1", Tool: "t", Paths: []string{"a.txt"}}, &call)
	f.write("a.txt", "one\nagent\nthree\n")
	f.ok(protocol.Request{Op: "call.finish", Run: "r1", Call: "c1"}, &call)
	f.write("a.txt", "one\nuser\nthree\n") // the same line: the hunks overlap
	resp := f.fails(protocol.Request{Op: "undo", Run: "r1", Call: "c1"}, 1, nil,
		(&protocol.ConflictsError{Paths: 1}).Error())
	var undo protocol.UndoDoc
	decode(t, resp.Result, &undo)
	if undo.Conflicts != 1 || len(undo.Paths) != 1 || undo.Paths[0].State != "conflicted" || undo.Paths[0].Written {
		t.Errorf("undo plan: %+v", undo)
	}
	if got := f.read("a.txt"); got != "one\nuser\nthree\n" {
		t.Errorf("undo rewrote the user's edit: %q", got)
	}
	if undo.Paths[0].Current != f.blob("a.txt") {
		t.Errorf("plan's current %s, git hash-object says %s", undo.Paths[0].Current, f.blob("a.txt"))
	}
}
