package gitguard_test

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// TestFormat1Run reads a run written by gitguard before format version 2
// (testdata/format1-run.tar.gz: calls c1, toolu_01ABC, c3 undone by
// undo-008, c4 failed, c5 still started, in one flat calls/ tree), checks
// that status and undo plans agree with a full read, then records a
// checkpoint on it: the run is converted (calls fanned out, run index
// written), every call's records are unchanged, the older checkpoints still
// read, and git fsck --strict accepts the repository.
func TestFormat1Run(t *testing.T) {
	dir, f, userBefore := openRecordedRun(t, "testdata/format1-run.tar.gz")
	ctx, g := f.ctx, f.g
	st := gitguard.StoreOf(g)
	old, err := st.ReadRun(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	if old.Checkpoint.Version != 1 || len(old.Calls) != 6 {
		t.Fatalf("fixture: version %d with %d calls, want version 1 with 6", old.Checkpoint.Version, len(old.Calls))
	}
	if old.Calls["c3"].Ledger.UndoneBy != "undo-008" || old.Calls["c4"].Ledger.Status != record.StatusFailed || old.Calls["c5"].Ledger.Status != record.StatusStarted {
		t.Fatalf("fixture calls are not as described: %+v", old.Calls)
	}
	compareIndex(t, f, 0)
	_, page, more, err := g.LedgerPage(ctx, "old", 3)
	if err != nil || len(page) != 3 || !more || page[2].CallID != "c5" {
		t.Fatalf("a ledger page of the version 1 run: %v, more %v, %+v; want the newest 3 ending with c5 (open)", err, more, page)
	}
	rep, err := g.Status(ctx, "old", gitguard.StatusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(rep.Paths); got != 4 { // a.txt, b.txt, dir/c.txt, new.txt
		t.Errorf("status of the version 1 run lists %d paths, want 4: %+v", got, rep.Paths)
	}
	patches, err := g.Diff(ctx, "old", gitguard.DiffOptions{Call: "toolu_01ABC"})
	if err != nil || len(patches) != 2 {
		t.Fatalf("diff --call toolu_01ABC on the version 1 run: %v, %d patches", err, len(patches))
	}

	// The first checkpoint written converts the run.
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\nthree\nfour\nfive\nsix\nseven\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := g.CallFinish(ctx, "old", "c5", gitguard.FinishOptions{}); err != nil {
		t.Fatal(err)
	}
	tip, err := st.ReadRun(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	if tip.Checkpoint.Version != record.FormatVersion {
		t.Fatalf("new checkpoint has version %d", tip.Checkpoint.Version)
	}
	names := gitOut(t, dir, "ls-tree", "-r", "--name-only", "refs/agent-checkpoints/runs/old")
	fannedLedger := regexp.MustCompile(`^calls/[0-9a-f]/[0-9a-f]/([^/]+)/ledger\.json$`)
	found := map[string]bool{}
	for _, n := range strings.Split(names, "\n") {
		if m := fannedLedger.FindStringSubmatch(n); m != nil {
			found[m[1]] = true
		} else if strings.HasPrefix(n, "calls/") && strings.HasSuffix(n, "/ledger.json") {
			t.Errorf("call not fanned out after conversion: %s", n)
		}
	}
	for id := range old.Calls {
		if !found[string(id)] {
			t.Errorf("call %s is missing from the converted calls tree", id)
		}
	}
	if !strings.Contains(names, "runindex/paths/") || !strings.Contains(names, "runindex/order/") {
		t.Errorf("no run index in the converted checkpoint:\n%s", names)
	}
	for id, c := range old.Calls {
		n := tip.Calls[id]
		if n == nil {
			t.Fatalf("call %s lost in the conversion", id)
		}
		if id == "c5" {
			continue
		}
		if !reflect.DeepEqual(n.Ledger, c.Ledger) || !reflect.DeepEqual(n.Patches, c.Patches) ||
			!reflect.DeepEqual(n.Before, c.Before) || !reflect.DeepEqual(n.Others, c.Others) {
			t.Errorf("call %s changed in the conversion:\n%+v\n%+v", id, c, n)
		}
	}
	if tip.Calls["c5"].Ledger.Status != record.StatusSucceeded || len(tip.Calls["c5"].Patches) != 1 {
		t.Errorf("c5 after finishing: %+v", tip.Calls["c5"])
	}
	compareIndex(t, f, 1)
	// The version 1 checkpoints still read.
	again, err := st.ReadCheckpoint(old.Commit)
	if err != nil || len(again.Calls) != 6 {
		t.Fatalf("old tip after the conversion: %v", err)
	}
	checkRecordedRun(t, dir, userBefore)
}

// openRecordedRun unpacks a repository with run "old" recorded by an
// earlier gitguard, opens it and returns its folder, a fixture on the run
// and the user's state (invariant 1) before anything ran.
func openRecordedRun(t *testing.T, tarball string) (string, *fixture, string) {
	t.Helper()
	gittest.RequireGit(t)
	gittest.Seal(t)
	dir := filepath.Join(t.TempDir(), "repo")
	untar(t, tarball, dir)
	userBefore, err := gittest.UserState(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	g, err := gitguard.Open(ctx, dir, gitguard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return dir, &fixture{t: t, g: g, run: "old", ctx: ctx}, userBefore
}

// checkRecordedRun checks that git fsck --strict accepts the repository
// and that the user's state is as before (invariant 1).
func checkRecordedRun(t *testing.T, dir, userBefore string) {
	t.Helper()
	if out, err := exec.Command("git", "-C", dir, "fsck", "--strict", "--no-dangling").CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("git fsck --strict: %v\n%s", err, out)
	}
	userAfter, err := gittest.UserState(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if userAfter != userBefore {
		t.Errorf("invariant 1 broken:\n%s", gittest.Diff(userBefore, userAfter))
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// untar extracts a gzipped tar of a repository into dir.
func untar(t *testing.T, name, dir string) {
	t.Helper()
	file, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	zr, err := gzip.NewReader(file)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(p, dir) {
			t.Fatalf("bad name in %s: %s", name, h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				var data []byte
				if data, err = io.ReadAll(tr); err == nil {
					err = os.WriteFile(p, data, os.FileMode(h.Mode)&0o777|0o200)
				}
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
