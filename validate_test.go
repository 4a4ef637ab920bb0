package gitguard_test

import (
	"errors"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// TestValidate: each option rule accepts what it should and refuses the
// rest with a usage error (a bad glob also with workspace.ErrBadGlob).
func TestValidate(t *testing.T) {
	t.Parallel()
	cp := &patchstore.Entry{}
	cases := []struct {
		name    string
		err     error
		bad     bool
		badGlob bool
	}{
		{"call ok", gitguard.CallOptions{CallID: "c1", Globs: []string{"src/**/*.go"}, Idempotency: record.Idempotent, ReplayPolicy: record.ReplayNever}.Validate(), false, false},
		{"call without id", gitguard.CallOptions{}.Validate(), true, false},
		{"call id with slash", gitguard.CallOptions{CallID: "a/b"}.Validate(), true, false},
		{"call bad glob", gitguard.CallOptions{CallID: "c1", Globs: []string{"[x"}}.Validate(), true, true},
		{"call bad idempotency", gitguard.CallOptions{CallID: "c1", Idempotency: "maybe"}.Validate(), true, false},
		{"call bad replay", gitguard.CallOptions{CallID: "c1", ReplayPolicy: "later"}.Validate(), true, false},
		{"finish default", gitguard.FinishOptions{}.Validate(), false, false},
		{"finish uncertain", gitguard.FinishOptions{Status: record.StatusUncertain}.Validate(), false, false},
		{"finish started", gitguard.FinishOptions{Status: record.StatusStarted}.Validate(), true, false},
		{"diff call", gitguard.DiffOptions{Call: "c1"}.Validate(), false, false},
		{"diff since", gitguard.DiffOptions{Since: cp}.Validate(), false, false},
		{"diff call and since", gitguard.DiffOptions{Call: "c1", Since: cp}.Validate(), true, false},
		{"diff bad glob", gitguard.DiffOptions{Globs: []string{"{a"}}.Validate(), true, true},
		{"undo newest", gitguard.UndoOptions{}.Validate(), false, false},
		{"undo each alone", errors.Join(gitguard.UndoOptions{Call: "c1"}.Validate(), gitguard.UndoOptions{To: cp}.Validate(), gitguard.UndoOptions{WholeRun: true}.Validate()), false, false},
		{"undo call and to", gitguard.UndoOptions{Call: "c1", To: cp}.Validate(), true, false},
		{"undo call and all", gitguard.UndoOptions{Call: "c1", WholeRun: true}.Validate(), true, false},
		{"undo to and all", gitguard.UndoOptions{To: cp, WholeRun: true}.Validate(), true, false},
		{"undo bad glob", gitguard.UndoOptions{Globs: []string{"[x"}}.Validate(), true, true},
		{"redo call", gitguard.UndoOptions{Call: "undo-003"}.ValidateRedo(), false, false},
		{"redo to", gitguard.UndoOptions{To: cp}.ValidateRedo(), true, false},
		{"redo all", gitguard.UndoOptions{WholeRun: true}.ValidateRedo(), true, false},
		{"redo bad glob", gitguard.UndoOptions{Globs: []string{"[x"}}.ValidateRedo(), true, true},
	}
	for _, c := range cases {
		if !c.bad {
			if c.err != nil {
				t.Errorf("%s: %v", c.name, c.err)
			}
			continue
		}
		if !errors.Is(c.err, gitguard.ErrUsage) {
			t.Errorf("%s: %v, want a usage error", c.name, c.err)
		}
		if errors.Is(c.err, workspace.ErrBadGlob) != c.badGlob {
			t.Errorf("%s: %v: wraps ErrBadGlob %v, want %v", c.name, c.err, !c.badGlob, c.badGlob)
		}
	}
}

// TestMethodsValidate: the methods that take options check them too, so a
// Go caller that skips Validate gets the same usage error, and nothing is
// recorded.
func TestMethodsValidate(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "one\n"})
	f.call("c1", []string{"a.txt"}, func() { f.write("a.txt", "two\n") })
	cp := &patchstore.Entry{}
	refs := f.repo.Git("for-each-ref", "refs/agent-checkpoints/")
	_, errUndo := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{Call: "c1", WholeRun: true})
	_, errRedo := f.g.Redo(f.ctx, f.run, gitguard.UndoOptions{WholeRun: true})
	_, errDiff := f.g.Diff(f.ctx, f.run, gitguard.DiffOptions{Call: "c1", Since: cp})
	_, errPlan := f.g.CallPlan(f.ctx, f.run, gitguard.CallOptions{CallID: "c2", Idempotency: "maybe"})
	_, errStart := f.g.CallStart(f.ctx, f.run, gitguard.CallOptions{CallID: "c2", Globs: []string{"[x"}})
	_, errFinish := f.g.CallFinish(f.ctx, f.run, "c1", gitguard.FinishOptions{Status: "bogus"})
	for name, err := range map[string]error{"Undo": errUndo, "Redo": errRedo, "Diff": errDiff,
		"CallPlan": errPlan, "CallStart": errStart, "CallFinish": errFinish} {
		if !errors.Is(err, gitguard.ErrUsage) {
			t.Errorf("%s: %v, want a usage error", name, err)
		}
	}
	if got := f.repo.Git("for-each-ref", "refs/agent-checkpoints/"); got != refs {
		t.Errorf("refused options moved refs:\n%s\n%s", refs, got)
	}
	if got := f.repo.Read("a.txt"); got != "two\n" {
		t.Errorf("a.txt: %q", got)
	}
	f.checkInvariant1()
}
