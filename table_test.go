package gitguard_test

import (
	"errors"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/conflict"
)

var base = lines("1", "2", "3", "4", "5", "6", "7", "8", "9", "10")

// changeKind is one kind of agent change to path p, with what a user might
// do afterwards.
type changeKind struct {
	name    string
	path    string
	initial map[string]string // committed files
	setup   func(f *fixture)  // extra state before the run's call (symlinks, modes)
	agent   func(f *fixture)
	edit    func(f *fixture) // the user edits the path after the agent
	revert  func(f *fixture) // the user puts the before state back
	// Expected file after undo when the user edited it: the user's edit
	// must survive, merged with the agent's hunks taken out where possible.
	wantEditedUndo string
}

var kinds = []changeKind{
	{
		name: "created", path: "new.txt", initial: map[string]string{"keep.txt": "k\n"},
		agent:          func(f *fixture) { f.write("new.txt", "agent line\n") },
		edit:           func(f *fixture) { f.write("new.txt", "agent line\nuser line\n") },
		revert:         func(f *fixture) { f.remove("new.txt") },
		wantEditedUndo: "file:agent line\nuser line\n", // overlaps the agent's only hunk: left alone
	},
	{
		name: "modified", path: "a.txt", initial: map[string]string{"a.txt": base},
		agent:          func(f *fixture) { f.write("a.txt", lines("1", "TWO", "3", "4", "5", "6", "7", "8", "9", "10")) },
		edit:           func(f *fixture) { f.write("a.txt", lines("1", "TWO", "3", "4", "5", "6", "7", "8", "user nine", "10")) },
		revert:         func(f *fixture) { f.write("a.txt", base) },
		wantEditedUndo: "file:" + lines("1", "2", "3", "4", "5", "6", "7", "8", "user nine", "10"),
	},
	{
		name: "deleted", path: "gone.txt", initial: map[string]string{"gone.txt": base, "keep.txt": "k\n"},
		agent:          func(f *fixture) { f.remove("gone.txt") },
		edit:           func(f *fixture) { f.write("gone.txt", "user rewrote it\n") },
		revert:         func(f *fixture) { f.write("gone.txt", base) },
		wantEditedUndo: "file:user rewrote it\n",
	},
	{
		name: "mode", path: "run.sh", initial: map[string]string{"run.sh": "#!/bin/sh\necho hi\n"},
		agent:          func(f *fixture) { f.chmod("run.sh", 0o755) },
		edit:           func(f *fixture) { f.write("run.sh", "#!/bin/sh\necho hi\necho user\n") },
		revert:         func(f *fixture) { f.chmod("run.sh", 0o644) },
		wantEditedUndo: "file:#!/bin/sh\necho hi\necho user\n", // user's content, the agent's mode change taken out
	},
	{
		name: "symlink", path: "link", initial: map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"},
		setup:          func(f *fixture) { f.symlink("a.txt", "link"); f.repo.Commit("link") },
		agent:          func(f *fixture) { f.symlink("b.txt", "link") },
		edit:           func(f *fixture) { f.symlink("c.txt", "link") },
		revert:         func(f *fixture) { f.symlink("a.txt", "link") },
		wantEditedUndo: "link -> c.txt",
	},
	{
		name: "binary", path: "img.bin", initial: map[string]string{"img.bin": "\x00\x01\x02before"},
		agent:          func(f *fixture) { f.write("img.bin", "\x00\x01\x02agent") },
		edit:           func(f *fixture) { f.write("img.bin", "\x00\x01\x02user") },
		revert:         func(f *fixture) { f.write("img.bin", "\x00\x01\x02before") },
		wantEditedUndo: "file:\x00\x01\x02user",
	},
}

type userAction struct {
	name string
	do   func(k changeKind, f *fixture)
	want conflict.State
}

var userActions = []userAction{
	{"untouched since", func(changeKind, *fixture) {}, conflict.Applied},
	{"user edited after", func(k changeKind, f *fixture) { k.edit(f) }, conflict.Conflicted},
	{"user reverted to before", func(k changeKind, f *fixture) { k.revert(f) }, conflict.Reapplyable},
}

// setupKind builds the repository for k and records the agent's call,
// once with the path declared and once capturing the whole workspace.
func setupKind(t *testing.T, k changeKind, declared bool) (*fixture, string, string) {
	f := newFixture(t, k.initial)
	if k.setup != nil {
		k.setup(f)
		// The commit in setup moved HEAD: start the invariant check from here.
		f.state = f.userState()
	}
	before := f.snapshotFile(k.path)
	var paths []string
	if declared {
		paths = []string{k.path}
	}
	f.call("c1", paths, func() { k.agent(f) })
	after := f.snapshotFile(k.path)
	if before == after {
		t.Fatalf("the agent's change to %s changed nothing", k.path)
	}
	return f, before, after
}

func TestClassificationTable(t *testing.T) {
	for _, declared := range []bool{true, false} {
		for _, k := range kinds {
			for _, ua := range userActions {
				name := k.name + "/" + ua.name
				if !declared {
					name += "/whole-workspace"
				}
				t.Run(name, func(t *testing.T) {
					f, _, _ := setupKind(t, k, declared)
					ua.do(k, f)
					rep, err := f.g.Status(f.ctx, f.run, gitguard.StatusOptions{})
					if err != nil {
						t.Fatal(err)
					}
					if len(rep.Paths) != 1 || rep.Paths[0].Path != k.path {
						t.Fatalf("status paths = %+v, want just %s", rep.Paths, k.path)
					}
					p := rep.Paths[0]
					if p.State != ua.want {
						t.Errorf("state = %s, want %s", p.State, ua.want)
					}
					// Cross-check with git hash-object: the class follows from ids alone.
					cur := f.hashObject(k.path)
					switch ua.want {
					case conflict.Applied:
						if cur != hashOrEmpty(p.After.Hash.String(), p.After.Exists()) {
							t.Errorf("applied but git hash-object = %q, after = %s", cur, p.After.Hash)
						}
					case conflict.Reapplyable:
						if cur != hashOrEmpty(p.Before.Hash.String(), p.Before.Exists()) {
							t.Errorf("reapplyable but git hash-object = %q, before = %s", cur, p.Before.Hash)
						}
					case conflict.Conflicted:
						if cur == hashOrEmpty(p.After.Hash.String(), p.After.Exists()) && p.Current.Mode == p.After.Mode {
							t.Errorf("conflicted but current equals after (%s)", cur)
						}
					}
					f.checkInvariant1()
				})
			}
		}
	}
}

func hashOrEmpty(h string, exists bool) string {
	if !exists {
		return ""
	}
	return h
}

func TestUndoTable(t *testing.T) {
	for _, k := range kinds {
		for _, ua := range userActions {
			t.Run(k.name+"/"+ua.name, func(t *testing.T) {
				f, before, after := setupKind(t, k, true)
				ua.do(k, f)
				preUndo := f.snapshotFile(k.path)
				var want string
				switch ua.want {
				case conflict.Applied, conflict.Reapplyable:
					want = before
				case conflict.Conflicted:
					want = k.wantEditedUndo
				}
				res, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{Call: "c1"})
				if err != nil {
					t.Fatal(err)
				}
				if got := f.snapshotFile(k.path); got != want {
					t.Errorf("after undo %s = %q, want %q (agent after was %q, plan %+v)", k.path, got, want, after, res.Items)
				}
				if ua.want == conflict.Conflicted && res.Conflicts == 0 && f.snapshotFile(k.path) == preUndo {
					// A conflicted path left alone must be reported.
					if res.Items[0].Action != gitguard.ActionSkip {
						t.Errorf("conflicted path left unchanged without a conflict report: %+v", res.Items)
					}
				}
				if res.UndoCall == "" {
					// Nothing written: nothing recorded, and nothing to redo.
					if f.snapshotFile(k.path) != preUndo {
						t.Errorf("an undo that recorded nothing changed %s", k.path)
					}
					if run, err := f.g.ReadRun(f.ctx, f.run); err != nil || len(run.Calls) != 1 {
						t.Errorf("an undo that wrote nothing left calls %v (err %v), want only c1", keys(run.Calls), err)
					}
					if _, err := f.g.Redo(f.ctx, f.run, gitguard.UndoOptions{}); !errors.Is(err, gitguard.ErrNothingToUndo) {
						t.Errorf("redo after an undo that wrote nothing: %v, want nothing to redo", err)
					}
					f.checkInvariant1()
					return
				}
				// Redo puts back exactly the state undo started from.
				_, err = f.g.Redo(f.ctx, f.run, gitguard.UndoOptions{})
				if errors.Is(err, gitguard.ErrNothingToUndo) {
					t.Fatalf("redo: %v", err)
				}
				if err != nil {
					t.Fatal(err)
				}
				if got := f.snapshotFile(k.path); got != preUndo {
					t.Errorf("after redo %s = %q, want the pre-undo %q", k.path, got, preUndo)
				}
				f.checkInvariant1()
			})
		}
	}
}
