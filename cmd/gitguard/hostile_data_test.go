package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
)

// forger builds runs with git plumbing only, as a remote (or anyone who
// can write .git) could deliver them: objects, then a ref made with git
// update-ref. Nothing of gitguard is involved.
type forger struct {
	t    *testing.T
	dir  string
	good string         // the good run's tip commit
	cp   map[string]any // the good tip's checkpoint.json
	wt   string         // the good tip's work-tree tree
	idx  string         // the good tip's index tree
	head string         // the HEAD commit the good tip recorded
	z    string
}

// newForger forges runs in dir. At cleanup, before the repository's own
// git fsck --strict, it deletes the forged runs and prunes their objects,
// which git fsck rightly calls broken.
func newForger(t *testing.T, dir string) *forger {
	f := &forger{t: t, dir: dir, z: strings.Repeat("0", 40)}
	t.Cleanup(func() {
		for _, ref := range strings.Fields(gitStdin(t, dir, nil, "for-each-ref", "--format=%(refname)", "refs/agent-checkpoints/runs/evil-*")) {
			gitStdin(t, dir, nil, "update-ref", "-d", ref)
		}
		gitStdin(t, dir, nil, "prune", "--expire=now")
	})
	f.good = f.git(nil, "rev-parse", "refs/agent-checkpoints/runs/good")
	if err := json.Unmarshal([]byte(f.git(nil, "cat-file", "blob", f.good+":checkpoint.json")), &f.cp); err != nil {
		t.Fatal(err)
	}
	f.wt = f.git(nil, "rev-parse", f.good+":worktree")
	f.idx = f.git(nil, "rev-parse", f.good+":index")
	f.head = f.cp["head"].(map[string]any)["oid"].(string)
	return f
}

func (f *forger) git(stdin []byte, args ...string) string {
	return gitStdin(f.t, f.dir, stdin, args...)
}

func (f *forger) blob(content string) string {
	return f.git([]byte(content), "hash-object", "-w", "--stdin")
}

// tree writes a tree from git mktree lines ("MODE TYPE HASH\tNAME"),
// which mktree writes without judging the names.
func (f *forger) tree(lines ...string) string {
	return f.git([]byte(strings.Join(lines, "\n")+"\n"), "mktree")
}

// rawTree writes a tree object byte for byte: entries are MODE, NAME, HASH.
func (f *forger) rawTree(entries ...[3]string) string {
	var b bytes.Buffer
	for _, e := range entries {
		h, err := hex.DecodeString(e[2])
		if err != nil {
			f.t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s\x00", e[0], e[1])
		b.Write(h)
	}
	return f.git(b.Bytes(), "hash-object", "-t", "tree", "--literally", "-w", "--stdin")
}

// withEntry returns the good work tree plus one more entry line.
func (f *forger) withEntry(line string) string {
	return f.tree(append(strings.Split(f.git(nil, "ls-tree", f.wt), "\n"), line)...)
}

// forgeSpec is what one forged checkpoint holds; zero fields take the good
// run's values, as a one-checkpoint run.
type forgeSpec struct {
	patches []map[string]any // patches.json of call c1 (none: no calls/)
	wt, idx string
	seq     int
	prev    string
	parents []string
	cp      func(map[string]any)
}

// patch is a patches.json entry of call c1 that turns before into after.
func patch(path, beforeMode, before, afterMode, after string) map[string]any {
	return map[string]any{"path": path, "beforeHash": before, "afterHash": after, "beforeMode": beforeMode,
		"afterMode": afterMode, "toolCallId": "c1", "createdAt": "2023-11-14T22:13:20Z",
		// Any patch text: the blob only has to exist.
		"patchRef": "8ab686eafeb1f44702738c8b0f24f2567c36da6d"}
}

// run writes the checkpoint commit of spec for run id and points the run's
// ref at it.
func (f *forger) run(id string, s forgeSpec) string {
	cp := map[string]any{}
	for k, v := range f.cp {
		cp[k] = v
	}
	if s.seq == 0 {
		s.seq = 1
	}
	if s.prev == "" {
		s.prev = f.z
	}
	if s.wt == "" {
		s.wt = f.wt
	}
	if s.idx == "" {
		s.idx = f.idx
	}
	if s.parents == nil {
		s.parents = []string{f.head}
	}
	cp["runId"], cp["seq"], cp["id"], cp["prev"] = id, s.seq, fmt.Sprintf("ckpt_%03d", s.seq), s.prev
	cp["worktreeTree"], cp["indexTree"] = s.wt, s.idx
	cp["version"] = 1 // the flat calls/ tree written below is format version 1's layout
	delete(cp, "open")
	if s.cp != nil {
		s.cp(cp)
	}
	enc := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			f.t.Fatal(err)
		}
		return b
	}
	lines := []string{
		"100644 blob " + f.git(enc(cp), "hash-object", "-w", "--stdin") + "\tcheckpoint.json",
		"040000 tree " + s.idx + "\tindex",
		"040000 tree " + s.wt + "\tworktree",
	}
	if len(s.patches) > 0 {
		var paths []string
		for _, p := range s.patches {
			paths = append(paths, p["path"].(string))
		}
		ledger := map[string]any{"version": 1, "callId": "c1", "toolName": "edit", "status": "succeeded", "paths": paths,
			"patches": len(s.patches), "startSeq": s.seq, "finishSeq": s.seq, "beforeTree": f.z}
		// As gitguard does, keep the blobs the records name reachable.
		var blobs []string
		seen := map[string]bool{f.z: true}
		f.blob("Hello, World!\n") // the patchRef of every forged patch
		for _, p := range s.patches {
			for _, k := range []string{"beforeHash", "afterHash", "patchRef"} {
				if h := p[k].(string); !seen[h] {
					seen[h] = true
					blobs = append(blobs, "100644 blob "+h+"\t"+h)
				}
			}
		}
		call := f.tree("100644 blob "+f.git(enc(ledger), "hash-object", "-w", "--stdin")+"\tledger.json",
			"100644 blob "+f.git(enc(s.patches), "hash-object", "-w", "--stdin")+"\tpatches.json",
			"040000 tree "+f.tree(blobs...)+"\tblobs")
		lines = append(lines, "040000 tree "+f.tree("040000 tree "+call+"\tc1")+"\tcalls")
	}
	args := []string{"commit-tree", f.tree(lines...)}
	for _, p := range s.parents {
		args = append(args, "-p", p)
	}
	commit := f.git([]byte("forged\n"), args...)
	f.git(nil, "update-ref", "refs/agent-checkpoints/runs/"+id, commit)
	return commit
}

// hostileClass is one kind of hostile run. forge plants it as run id.
type hostileClass struct {
	name  string
	forge func(f *forger, id, outside string)
	// linkData: not hostile at all. The records are consistent and git
	// accepts such trees: a symlink's target is data, and a link may point
	// anywhere (into .git, outside the work tree, through other links), as
	// git checks it out. Every command accepts the run; undo recreates the
	// link, writing nothing through it, and redo removes it again.
	linkData bool
	// links are the links undo recreates for a linkData run: path → target.
	links map[string]string
}

func hostileClasses() []hostileClass {
	evilHook := func(f *forger) string { return f.blob("#!/bin/sh\necho owned\n") }
	deletedLink := func(target string) func(f *forger, id, outside string) {
		return func(f *forger, id, outside string) {
			if target == "OUTSIDE" {
				target = outside
			}
			f.run(id, forgeSpec{patches: []map[string]any{patch("a", "120000", f.blob(target), "000000", f.z)}})
		}
	}
	dotgitEntry := func(name string) func(f *forger, id, outside string) {
		return func(f *forger, id, outside string) {
			hooks := f.tree("100755 blob " + evilHook(f) + "\tpre-commit")
			f.run(id, forgeSpec{wt: f.withEntry("040000 tree " + f.tree("040000 tree "+hooks+"\thooks") + "\t" + name)})
		}
	}
	return []hostileClass{
		{name: "symlink-with-path-beneath", forge: func(f *forger, id, outside string) {
			f.run(id, forgeSpec{patches: []map[string]any{
				patch("a", "120000", f.blob(".git"), "000000", f.z),
				patch("a/hooks/pre-commit", "100755", evilHook(f), "000000", f.z),
			}})
		}},
		{name: "symlink-to-dotgit", forge: deletedLink(".git"), linkData: true, links: map[string]string{"a": ".git"}},
		{name: "symlink-into-dotgit", forge: deletedLink("x/../.git/hooks"), linkData: true, links: map[string]string{"a": "x/../.git/hooks"}},
		{name: "symlink-absolute", forge: deletedLink("OUTSIDE"), linkData: true, links: map[string]string{"a": "OUTSIDE"}},
		{name: "symlink-dotdot", forge: deletedLink("../.."), linkData: true, links: map[string]string{"a": "../.."}},
		{name: "symlink-chain", forge: func(f *forger, id, outside string) {
			// l1 -> . and l2 -> l1/l1/.. : each looks harmless alone.
			f.run(id, forgeSpec{patches: []map[string]any{
				patch("l1", "120000", f.blob("."), "000000", f.z),
				patch("l2", "120000", f.blob("l1/l1/.."), "000000", f.z),
			}})
		}, linkData: true, links: map[string]string{"l1": ".", "l2": "l1/l1/.."}},
		{name: "tree-dotgit", forge: dotgitEntry(".git")},
		{name: "tree-dotgit-case", forge: dotgitEntry(".GIT")},
		{name: "tree-dotgit-ntfs", forge: dotgitEntry("git~1")},
		{name: "tree-dotgit-dot", forge: dotgitEntry(".git.")},
		{name: "tree-dotdot", forge: dotgitEntry("..")},
		{name: "tree-dot", forge: dotgitEntry(".")},
		{name: "index-dotgit", forge: func(f *forger, id, outside string) {
			hooks := f.tree("100755 blob " + evilHook(f) + "\tpre-commit")
			f.run(id, forgeSpec{idx: f.tree("040000 tree " + f.tree("040000 tree "+hooks+"\thooks") + "\t.git")})
		}},
		{name: "tree-duplicate", forge: func(f *forger, id, outside string) {
			link := f.blob(".git")
			sub := f.tree("100644 blob " + evilHook(f) + "\tx")
			f.run(id, forgeSpec{wt: f.rawTree([3]string{"120000", "a", link}, [3]string{"40000", "a", sub})})
		}},
		{name: "tree-bad-mode", forge: func(f *forger, id, outside string) {
			f.run(id, forgeSpec{wt: f.rawTree([3]string{"100664", "a.txt", f.blob("x\n")})})
		}},
		{name: "ref-at-tree", forge: func(f *forger, id, outside string) {
			f.git(nil, "update-ref", "refs/agent-checkpoints/runs/"+id, f.wt)
		}},
		{name: "prev-at-tree", forge: func(f *forger, id, outside string) {
			f.run(id, forgeSpec{seq: 2, prev: f.wt})
		}},
		{name: "ref-at-other-run", forge: func(f *forger, id, outside string) {
			f.git(nil, "update-ref", "refs/agent-checkpoints/runs/"+id, f.good)
		}},
		{name: "prev-at-other-run", forge: func(f *forger, id, outside string) {
			seq := int(f.cp["seq"].(float64)) + 1
			f.run(id, forgeSpec{seq: seq, prev: f.good, parents: []string{f.good},
				patches: []map[string]any{patch("a.txt", "100644", f.blob("evil\n"), "000000", f.z)}})
		}},
		{name: "record-bad-mode", forge: func(f *forger, id, outside string) {
			f.run(id, forgeSpec{patches: []map[string]any{patch("a.txt", "040000", f.blob("evil\n"), "000000", f.z)}})
		}},
		{name: "record-negative-size", forge: func(f *forger, id, outside string) {
			f.run(id, forgeSpec{cp: func(cp map[string]any) {
				cp["oversize"] = []map[string]any{{"path": "big", "mode": "100644", "hash": f.blob("x"), "size": -1}}
			}})
		}},
	}
}

// setupGood makes a repository with a committed a.txt and a good run whose
// call c1 edited it.
func setupGood(t *testing.T) *gittest.Repo {
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("init")
	mustRun(t, r.Dir, "start", "--run", "good")
	mustRun(t, r.Dir, "call", "start", "c1", "--tool", "edit", "--", "a.txt")
	r.Write("a.txt", "agent\n")
	mustRun(t, r.Dir, "call", "finish", "c1")
	mustRun(t, r.Dir, "finish")
	return r
}

// untouched snapshots what no refused command may change: the user's
// state and work tree (invariant 1), every ref of the namespace, the
// hooks folder, and a folder outside the work tree.
type untouched struct {
	user, refs, hooks string
}

func snapshotUntouched(t *testing.T, dir string) untouched {
	user, err := gittest.UserState(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	hooks, _ := gittest.WorktreeDigest(filepath.Join(dir, ".git", "hooks"))
	return untouched{user: user, hooks: hooks, refs: gitStdin(t, dir, nil, "for-each-ref", "refs/agent-checkpoints/")}
}

func (u untouched) check(t *testing.T, dir, outside, what string) {
	t.Helper()
	now := snapshotUntouched(t, dir)
	if now.user != u.user {
		t.Errorf("%s: user state or work tree changed:\n%s", what, gittest.Diff(u.user, now.user))
	}
	if now.refs != u.refs {
		t.Errorf("%s: gitguard refs changed:\n%s", what, gittest.Diff(u.refs, now.refs))
	}
	if now.hooks != u.hooks {
		t.Errorf("%s: .git/hooks changed", what)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("%s: written outside the work tree: %v", what, ents)
	}
}

// TestHostileData plants each hostile class as a run with plain git
// (objects and git update-ref, no gitguard) and runs every command that
// reads a run on it: each refuses with exit 3 and a one-line message plus
// hint, and nothing is written — not in the work tree, not outside it,
// not in .git (refs, index, hooks). Runs whose links are data (a symlink
// to anywhere, as git checks it out) are readable, and undo recreates the
// links without writing through them (checkLinkData).
func TestHostileData(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	r := setupGood(t)
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	f := newForger(t, r.Dir)
	for _, hc := range hostileClasses() {
		t.Run(hc.name, func(t *testing.T) {
			id := "evil-" + hc.name
			hc.forge(f, id, outside)
			before := snapshotUntouched(t, r.Dir)
			for _, args := range [][]string{
				{"log", "--run", id},
				{"show", "--run", id, "ckpt_001"},
				{"status", "--run", id},
				{"diff", "--run", id},
				{"ledger", "--run", id},
				{"resume", "--run", id},
				{"undo", "--run", id},
				{"undo", "--run", id, "--all"},
				{"redo", "--run", id},
			} {
				out, err := gitguardCmd(t, r.Dir, nil, args...)
				code := exitOf(err)
				cmd := "gitguard " + strings.Join(args, " ")
				if hc.linkData {
					checkLinkData(t, r.Dir, outside, hc, args, code, out, &before)
					continue
				}
				switch {
				case code != exitIntegrity:
					t.Errorf("%s: exit %d, want %d\n%s", cmd, code, exitIntegrity, out)
				default:
					lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
					if len(lines) != 2 || !strings.HasPrefix(lines[0], "gitguard: ") || !strings.HasPrefix(lines[1], "\thint: ") {
						t.Errorf("%s: want a one-line error and a hint, got:\n%s", cmd, out)
					}
				}
				before.check(t, r.Dir, outside, cmd)
			}
		})
	}
}

// checkLinkData checks one command of the sequence log, show, status,
// diff, ledger, resume, undo, undo --all, redo on a linkData run: read
// commands accept it (exit 0 or 1); undo recreates each link with its
// target, as git would check it out, and writes nothing through it
// (nothing outside the work tree, .git/hooks as it was); undo --all then
// finds nothing left to undo (exit 2); redo removes the links again, and
// the user's state and work tree are as they were.
func checkLinkData(t *testing.T, dir, outside string, hc hostileClass, args []string, code int, out string, before *untouched) {
	t.Helper()
	cmd := "gitguard " + strings.Join(args, " ")
	links := func(present bool) {
		t.Helper()
		for p, target := range hc.links {
			if target == "OUTSIDE" {
				target = outside
			}
			got, err := os.Readlink(filepath.Join(dir, p))
			switch {
			case present && (err != nil || got != target):
				t.Errorf("%s: %s -> %q (%v), want -> %q", cmd, p, got, err, target)
			case !present && err == nil:
				t.Errorf("%s: %s -> %q is still there", cmd, p, got)
			}
		}
	}
	want := []int{exitOK, exitFound}
	switch {
	case len(args) == 3 && args[0] == "undo":
		want = []int{exitOK}
	case args[0] == "undo":
		want = []int{exitUsage} // undone already: nothing left to undo
	case args[0] == "redo":
		want = []int{exitOK}
	}
	if !slices.Contains(want, code) {
		t.Errorf("%s: exit %d, want one of %v\n%s", cmd, code, want, out)
	}
	now := snapshotUntouched(t, dir)
	if now.hooks != before.hooks {
		t.Errorf("%s: .git/hooks changed", cmd)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("%s: written outside the work tree: %v", cmd, ents)
	}
	switch args[0] {
	case "undo":
		links(true)
	case "redo":
		links(false)
		// Undo and redo recorded their calls in the run's ref: nothing else moved.
		before.refs = now.refs
		before.check(t, dir, outside, cmd)
	default:
		before.check(t, dir, outside, cmd)
	}
}

// TestFetchHostileData pushes a run of every hostile class, made with
// plain git, to a remote and fetches them with gitguard fetch into a clone:
// the fetch exits 3, reports each run refused (the runs whose links are
// data arrive, as git accepts such trees), keeps no ref of a refused run
// and no quarantine ref, and changes nothing else. Undo on every run that
// arrived recreates its links, writing nothing through them; redo removes
// them again.
func TestFetchHostileData(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	src := setupGood(t)
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	f := newForger(t, src.Dir)
	classes := hostileClasses()
	for _, hc := range classes {
		hc.forge(f, "evil-"+hc.name, outside)
	}
	remote := filepath.Join(t.TempDir(), "remote.git")
	src.Git("init", "-q", "--bare", remote)
	src.Git("push", "-q", remote, "main", "refs/agent-checkpoints/runs/*:refs/agent-checkpoints/runs/*")
	clone := filepath.Join(t.TempDir(), "clone")
	src.Git("clone", "-q", remote, clone)
	before := snapshotUntouched(t, clone)

	out, err := gitguardCmd(t, clone, nil, "fetch")
	if code := exitOf(err); code != exitIntegrity {
		t.Fatalf("fetch: exit %d, want %d\n%s", code, exitIntegrity, out)
	}
	var kept []string
	for _, hc := range classes {
		id := "evil-" + hc.name
		want := "refused"
		if hc.linkData {
			want, kept = "new", append(kept, id)
		}
		if !regexpLine(out, id, want) {
			t.Errorf("fetch: run %s not reported %s:\n%s", id, want, out)
		}
	}
	refs := gitStdin(t, clone, nil, "for-each-ref", "--format=%(refname)", "refs/agent-checkpoints/")
	wantRefs := []string{"refs/agent-checkpoints/runs/good"}
	for _, id := range kept {
		wantRefs = append(wantRefs, "refs/agent-checkpoints/runs/"+id)
	}
	if got := strings.Fields(refs); strings.Join(sorted(got), "\n") != strings.Join(sorted(wantRefs), "\n") {
		t.Errorf("refs after fetch:\n%s\nwant:\n%s", refs, strings.Join(wantRefs, "\n"))
	}
	// Invariant 1 and the work tree, ignoring the namespace refs fetch added.
	before.refs = gitStdin(t, clone, nil, "for-each-ref", "refs/agent-checkpoints/")
	before.check(t, clone, outside, "fetch")
	// The runs of links are data: undo recreates each link, redo removes it.
	for _, hc := range classes {
		if !hc.linkData {
			continue
		}
		id := "evil-" + hc.name
		for _, args := range [][]string{{"undo", "--run", id}, {"undo", "--run", id, "--all"}, {"redo", "--run", id}} {
			out, err := gitguardCmd(t, clone, nil, args...)
			checkLinkData(t, clone, outside, hc, args, exitOf(err), out, &before)
		}
	}
}

// regexpLine reports whether out has a line starting with run and then
// action, as fetch's table prints it.
func regexpLine(out, run, action string) bool {
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == run && f[1] == action {
			return true
		}
	}
	return false
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
