package gitguard_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
)

// stage puts content into the index at path, as git add -p of some hunks
// would, without touching the work tree.
func (f *fixture) stage(path, content string) {
	f.t.Helper()
	tmp := filepath.Join(f.t.TempDir(), "blob")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	blob := f.repo.Git("hash-object", "-w", tmp)
	f.repo.Git("update-index", "--add", "--cacheinfo", "100644,"+blob+","+path)
}

// The pre-commit check passes staged content made of the agent's recorded
// hunks (git add -p), and blocks staged content no checkpoint recorded;
// with no active run it never blocks.
func TestCheckStagedPartOfRecordedChange(t *testing.T) {
	base := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	f := newFixture(t, map[string]string{"a.txt": base})
	f.call("c1", []string{"a.txt"}, func() {
		f.write("a.txt", strings.Replace(strings.Replace(base, "2\n", "2 agent\n", 1), "9\n", "9 agent\n", 1))
	})
	f.stage("a.txt", strings.Replace(base, "2\n", "2 agent\n", 1)) // the first hunk only
	rep, err := f.g.Check(f.ctx, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Drift) != 0 {
		t.Errorf("part of a recorded change staged: drift %+v, want none", rep.Drift)
	}

	f.stage("a.txt", strings.Replace(base, "2\n", "2 agent and user\n", 1)) // not what the agent wrote
	f.stage("mine.txt", "the user's own file\n")
	f.state = f.userState() // the test staged; the check must change nothing
	rep, err = f.g.Check(f.ctx, "", true)
	if err != nil {
		t.Fatal(err)
	}
	var drifted []string
	for _, d := range rep.Drift {
		drifted = append(drifted, d.Change.Path)
	}
	if strings.Join(drifted, " ") != "a.txt mine.txt" {
		t.Errorf("drift %v, want a.txt (content not recorded) and mine.txt", drifted)
	}

	if _, err := f.g.FinishRun(f.ctx, f.run, gitguard.CheckpointOptions{}); err != nil {
		t.Fatal(err)
	}
	rep, err = f.g.Check(f.ctx, "", true)
	if err != nil || len(rep.Drift) != 0 || rep.Run != "" {
		t.Errorf("no active run: %+v, %v; want nothing checked", rep, err)
	}
	f.checkInvariant1()
}
