package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// gitStdin runs git in dir with stdin and returns its trimmed stdout.
func gitStdin(t *testing.T, dir string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// hostileCase is a run forged with git plumbing, the way a remote (or
// anyone with write access to .git) could deliver it, bypassing fetch's
// verification.
type hostileCase struct {
	name string
	// path is the path the forged call's records name.
	path string
	// patches, ledger and checkpoint edit the forged records (nil: as made).
	patches    func(p map[string]any)
	ledger     func(l map[string]any)
	checkpoint func(c map[string]any)
	// rawPatches replaces patches.json entirely.
	rawPatches func() []byte
	// want is the exit code every reading command must give.
	want int
	// local: the records are well-formed and only the work tree makes them
	// dangerous (link/x with link a symlink now). Read-only commands may
	// list them; undo and redo must refuse with want; fetch's VerifyRun
	// refuses the run because its own snapshot has link as a symlink.
	local bool
}

// forgeRun writes run id whose single call c1 "deleted" path: undoing it
// would write evil content there. It copies the good run's tip for
// everything else.
func forgeRun(t *testing.T, dir, id string, hc hostileCase) {
	t.Helper()
	z := strings.Repeat("0", 40)
	good := gitStdin(t, dir, nil, "rev-parse", "refs/agent-checkpoints/runs/good")
	evil := gitStdin(t, dir, []byte("evil\n"), "hash-object", "-w", "--stdin")
	patchRef := gitStdin(t, dir, []byte("diff --git a/x b/x\n"), "hash-object", "-w", "--stdin")
	patch := map[string]any{
		"path": hc.path, "beforeHash": evil, "afterHash": z, "beforeMode": "100644", "afterMode": "000000",
		"patchRef": patchRef, "toolCallId": "c1", "createdAt": "2023-11-14T22:13:20Z",
	}
	if hc.patches != nil {
		hc.patches(patch)
	}
	ledger := map[string]any{
		"version": 1, "callId": "c1", "toolName": "edit", "status": "succeeded", "paths": []string{hc.path},
		"patches": 1, "startSeq": 1, "finishSeq": 1, "beforeTree": z,
	}
	if hc.ledger != nil {
		hc.ledger(ledger)
	}
	var cp map[string]any
	if err := json.Unmarshal([]byte(gitStdin(t, dir, nil, "cat-file", "blob", good+":checkpoint.json")), &cp); err != nil {
		t.Fatal(err)
	}
	// A one-checkpoint run of its own, consistent with its commit: what
	// is hostile is only what the case puts in it. The flat calls/ tree
	// written below is format version 1's layout.
	cp["runId"], cp["seq"], cp["id"], cp["prev"], cp["version"] = id, 1, "ckpt_001", z, 1
	if hc.checkpoint != nil {
		hc.checkpoint(cp)
	}
	enc := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pj := enc([]any{patch})
	if hc.rawPatches != nil {
		pj = hc.rawPatches()
	}
	lh := gitStdin(t, dir, enc(ledger), "hash-object", "-w", "--stdin")
	ph := gitStdin(t, dir, pj, "hash-object", "-w", "--stdin")
	ch := gitStdin(t, dir, enc(cp), "hash-object", "-w", "--stdin")
	call := gitStdin(t, dir, []byte(fmt.Sprintf("100644 blob %s\tledger.json\n100644 blob %s\tpatches.json\n", lh, ph)), "mktree")
	calls := gitStdin(t, dir, []byte(fmt.Sprintf("040000 tree %s\tc1\n", call)), "mktree")
	wt := gitStdin(t, dir, nil, "rev-parse", good+":worktree")
	idx := gitStdin(t, dir, nil, "rev-parse", good+":index")
	root := gitStdin(t, dir, []byte(fmt.Sprintf("040000 tree %s\tcalls\n100644 blob %s\tcheckpoint.json\n040000 tree %s\tindex\n040000 tree %s\tworktree\n", calls, ch, idx, wt)), "mktree")
	head := cp["head"].(map[string]any)["oid"].(string)
	commit := gitStdin(t, dir, []byte("forged\n"), "commit-tree", root, "-p", head)
	gitStdin(t, dir, nil, "update-ref", "refs/agent-checkpoints/runs/"+id, commit)
}

func hostileCases(outside string) []hostileCase {
	big := func() []byte {
		// One entry whose path is padded to pass the record size limit.
		var b bytes.Buffer
		b.WriteString(`[{"path":"a.txt","toolCallId":"c1","pad":"`)
		b.Write(bytes.Repeat([]byte("x"), record.MaxRecordSize+1))
		b.WriteString(`"}]`)
		return b.Bytes()
	}
	return []hostileCase{
		{name: "dotdot", path: "../x", want: exitIntegrity},
		{name: "absolute", path: outside + "/x", want: exitIntegrity},
		{name: "etc", path: "/etc/x", want: exitIntegrity},
		{name: "dotgit-hook", path: ".git/hooks/pre-commit", want: exitIntegrity},
		{name: "dotgit-case", path: ".GIT/config", want: exitIntegrity},
		{name: "inner-dotdot", path: "a/../../x", want: exitIntegrity},
		{name: "nul", path: "a\x00b", want: exitIntegrity},
		{name: "ntfs-alias", path: "git~1/config", want: exitIntegrity},
		{name: "dotgit-dot", path: ".git./hooks/pre-commit", want: exitIntegrity},
		{name: "symlink-parent", path: "link/x", want: exitUsage, local: true},
		{name: "oversized", path: "a.txt", rawPatches: big, want: exitIntegrity},
		{name: "ledger-version", path: "a.txt", ledger: func(l map[string]any) { l["version"] = 99 }, want: exitIntegrity},
		{name: "checkpoint-version", path: "a.txt", checkpoint: func(c map[string]any) { c["version"] = 99 }, want: exitIntegrity},
		{name: "missing-blob", path: "a.txt", patches: func(p map[string]any) {
			p["beforeHash"] = "1234567890123456789012345678901234567890"
		}, want: exitIntegrity},
	}
}

// TestHostileCheckpoints forges runs whose records name unsafe paths, are
// oversized, have a wrong format version or name objects that do not
// exist, and runs every command that reads a run on them: each must refuse
// with exit 3 (the exit-code table's "integrity failure") and a one-line
// message plus hint, and nothing may be written: not outside the work tree
// (through ../, an absolute path or the symlink link -> OUTSIDE), not in
// .git, not in the work tree.
func TestHostileCheckpoints(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	r := gittest.New(t)
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	r.Write("a.txt", "a\n")
	r.Commit("init")
	r.Symlink(outside, "link")
	mustRun(t, r.Dir, "start", "--run", "good")
	mustRun(t, r.Dir, "call", "start", "c1", "--tool", "edit", "--", "a.txt")
	r.Write("a.txt", "agent\n")
	mustRun(t, r.Dir, "call", "finish", "c1")
	mustRun(t, r.Dir, "finish")
	hooks := filepath.Join(r.Dir, ".git", "hooks")
	for _, hc := range hostileCases(outside) {
		t.Run(hc.name, func(t *testing.T) {
			id := "evil-" + hc.name
			forgeRun(t, r.Dir, id, hc)
			user, err := gittest.UserState(r.Dir, true)
			if err != nil {
				t.Fatal(err)
			}
			hooksBefore, _ := gittest.WorktreeDigest(hooks)
			for _, args := range [][]string{
				{"log", "--run", id},
				{"show", "--run", id, "ckpt_001"},
				{"status", "--run", id},
				{"diff", "--run", id, "--call", "c1"},
				{"ledger", "--run", id},
				{"resume", "--run", id},
				{"check", "--run", id},
				{"undo", "--run", id},
				{"undo", "--run", id, "--call", "c1"},
				{"undo", "--run", id, "--all"},
				{"redo", "--run", id},
			} {
				out, err := gitguardCmd(t, r.Dir, nil, args...)
				code := exitOf(err)
				if hc.local && args[0] != "undo" && args[0] != "redo" {
					// log and show also walk the forged chain and refuse it (3);
					// commands that look at the path refuse the symlinked folder (2).
					if code != exitOK && code != exitFound && code != exitIntegrity && code != exitUsage {
						t.Errorf("gitguard %s: exit %d\n%s", strings.Join(args, " "), code, out)
					}
					continue
				}
				if hc.local && args[0] == "redo" && code == exitUsage {
					continue // no undo in effect: nothing to redo, nothing written
				}
				if code != hc.want {
					t.Errorf("gitguard %s: exit %d, want %d\n%s", strings.Join(args, " "), code, hc.want, out)
					continue
				}
				lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
				if len(lines) != 2 || !strings.HasPrefix(lines[0], "gitguard: ") || !strings.HasPrefix(lines[1], "\thint: ") {
					t.Errorf("gitguard %s: want a one-line error and a hint, got:\n%s", strings.Join(args, " "), out)
				}
			}
			if hc.local {
				ctx := context.Background()
				g, err := gitguard.Open(ctx, r.Dir, gitguard.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if err := g.VerifyRun(ctx, record.RunID(id)); !errors.Is(err, record.ErrCorrupt) {
					t.Errorf("VerifyRun (as fetch runs it) accepted the forged run: %v", err)
				}
				g.Close()
			}
			if ents, _ := os.ReadDir(outside); len(ents) != 0 {
				t.Errorf("written outside the work tree: %v", ents)
			}
			if after, _ := gittest.UserState(r.Dir, true); after != user {
				t.Errorf("user state or work tree changed:\n%s", gittest.Diff(user, after))
			}
			if after, _ := gittest.WorktreeDigest(hooks); after != hooksBefore {
				t.Errorf(".git/hooks changed:\n%s", gittest.Diff(hooksBefore, after))
			}
			if _, err := os.Lstat(filepath.Join(filepath.Dir(r.Dir), "x")); err == nil {
				t.Errorf("../x written")
			}
		})
	}
}
