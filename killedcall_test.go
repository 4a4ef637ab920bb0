package gitguard_test

import (
	"os"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/brief"
	"github.com/gitguard/gitguard/conflict"
	"github.com/gitguard/gitguard/record"
)

// Two calls whose process died. The edit call wrote before the shell call
// beside it started: the shell call's start snapshot ends the edit's
// window, and is recorded as the evidence. Nothing was recorded after the
// shell call's start: resume ends its window at the work tree as it finds
// it, which is only a guess (the changes may be the user's, made after the
// process died). Each gets its own changes, and status lists them under it
// as uncertain: the edit's applied, the shell call's as guesses. Undo
// --call takes the edit's out; it leaves the guessed ones as they are
// unless forced, and forced keeps a later user edit.
func TestResumeAttributesKilledCalls(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n", "b.txt": "1\n2\n3\n4\n5\n"})
	if _, err := f.g.CallStart(f.ctx, f.run, gitguard.CallOptions{CallID: "edit", Tool: "Edit", Paths: []string{"a.txt"}}); err != nil {
		t.Fatal(err)
	}
	f.write("a.txt", "a by edit\n")
	if _, err := f.g.CallStart(f.ctx, f.run, gitguard.CallOptions{CallID: "sh", Tool: "Bash"}); err != nil {
		t.Fatal(err)
	}
	f.write("b.txt", "1\n2 by sh\n3\n4\n5\n")
	f.write("new.txt", "new\n")
	// Both processes die here: neither finish is recorded.

	r, err := f.g.Resume(f.ctx, f.run, gitguard.ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Unrecorded) != 0 {
		t.Errorf("unrecorded %v, want every change attributed to a killed call", r.Unrecorded)
	}
	brief := brief.Text(r)
	for _, want := range []string{"Edit (edit) is uncertain", "Bash (sh) is uncertain", "is attributed to it"} {
		if !strings.Contains(brief, want) {
			t.Errorf("brief lacks %q:\n%s", want, brief)
		}
	}
	st, err := f.g.Status(f.ctx, f.run, gitguard.StatusOptions{Unrecorded: true})
	if err != nil {
		t.Fatal(err)
	}
	owner := map[string]record.CallID{}
	for _, p := range st.Paths {
		owner[p.Path] = p.Call
		switch {
		case p.Call == "edit" && (!p.Uncertain || p.State != conflict.Applied || p.Guess != ""):
			t.Errorf("%s: uncertain=%v state=%s guess=%q, want an uncertain applied patch, bounded by evidence", p.Path, p.Uncertain, p.State, p.Guess)
		case p.Call == "sh" && (!p.Uncertain || p.State != gitguard.Guessed || p.Guess == ""):
			t.Errorf("%s: uncertain=%v state=%s guess=%q, want a guessed patch", p.Path, p.Uncertain, p.State, p.Guess)
		}
	}
	run, err := f.g.ReadRun(f.ctx, f.run)
	if err != nil {
		t.Fatal(err)
	}
	if w := run.Calls["edit"].Ledger.WindowEnd; w == nil || w.Kind != record.EvidenceCheckpoint || w.Seq != run.Calls["sh"].Ledger.StartSeq {
		t.Errorf("edit's window end %+v, want the checkpoint of sh's start", w)
	}
	if w := run.Calls["sh"].Ledger.WindowEnd; w == nil || w.Kind != record.EvidenceNone {
		t.Errorf("sh's window end %+v, want none (a guess)", w)
	}
	if owner["a.txt"] != "edit" || owner["b.txt"] != "sh" || owner["new.txt"] != "sh" {
		t.Errorf("owners %v, want a.txt to edit, b.txt and new.txt to sh", owner)
	}
	if len(st.Unrecorded) != 0 {
		t.Errorf("status unrecorded %v, want none", st.Unrecorded)
	}

	// A late user edit: undo of the killed shell call leaves what is only
	// guessed to be its change as it is, and forced keeps the user's line.
	f.write("b.txt", "1\n2 by sh\n3\n4\n5 user\n")
	res, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{Call: "sh"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Uncertain != 2 || readFile(t, f, "b.txt") != "1\n2 by sh\n3\n4\n5 user\n" || readFile(t, f, "new.txt") != "new\n" {
		t.Errorf("undo without force: %d left as uncertain, b.txt %q, new.txt %q; want both left as they are", res.Uncertain, readFile(t, f, "b.txt"), readFile(t, f, "new.txt"))
	}
	if _, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{Call: "sh", Force: true}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, f, "b.txt"); got != "1\n2\n3\n4\n5 user\n" {
		t.Errorf("b.txt = %q, want the user's line kept and the call's taken out", got)
	}
	if _, err := os.Stat(f.abs("new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt still there after undo of the call that created it: %v", err)
	}
	if _, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{Call: "edit"}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, f, "a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q, want it as before the killed edit", got)
	}
	// A dry resume afterwards finds nothing started and changes nothing.
	if r, err = f.g.Resume(f.ctx, f.run, gitguard.ResumeOptions{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Calls {
		if c.MarkedUncertain {
			t.Errorf("call %s marked uncertain again", c.Entry.CallID)
		}
	}
	f.checkInvariant1()
}

// A call marked uncertain with its changes attributed can still report its
// own end (its process was only slow): its report replaces the attribution.
func TestLateFinishReplacesAttribution(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"})
	if _, err := f.g.CallStart(f.ctx, f.run, gitguard.CallOptions{CallID: "slow", Tool: "Bash"}); err != nil {
		t.Fatal(err)
	}
	f.write("a.txt", "half\n")
	if _, err := f.g.Resume(f.ctx, f.run, gitguard.ResumeOptions{}); err != nil {
		t.Fatal(err)
	}
	f.write("a.txt", "done\n")
	run, err := f.g.CallFinish(f.ctx, f.run, "slow", gitguard.FinishOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := run.Calls["slow"]
	if c.Ledger.Status != record.StatusSucceeded || c.Ledger.ChangesThrough != 0 || len(c.Patches) != 1 || c.Patches[0].After() == c.Patches[0].Before() {
		t.Fatalf("after the late finish: %+v, patches %+v", c.Ledger, c.Patches)
	}
	if _, err := f.g.CallFinish(f.ctx, f.run, "slow", gitguard.FinishOptions{}); err != nil {
		t.Errorf("finishing again as succeeded: %v, want a no-op", err)
	}
	if _, err := f.g.CallFinish(f.ctx, f.run, "slow", gitguard.FinishOptions{Status: record.StatusFailed}); err == nil || !strings.Contains(err.Error(), "already finished as succeeded") {
		t.Errorf("finishing again as failed: %v, want refused", err)
	}
	f.checkInvariant1()
}

func readFile(t *testing.T, f *fixture, p string) string {
	t.Helper()
	b, err := os.ReadFile(f.abs(p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
