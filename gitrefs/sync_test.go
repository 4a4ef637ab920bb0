package gitrefs

import (
	"errors"
	"testing"

	"github.com/gitguard/gitguard/record"
)

func TestParsePorcelain(t *testing.T) {
	t.Parallel()
	out := "To ../remote.git\n" +
		"*\trefs/agent-checkpoints/runs/a:refs/agent-checkpoints/runs/a\t[new reference]\n" +
		"=\trefs/agent-checkpoints/runs/b:refs/agent-checkpoints/runs/b\t[up to date]\n" +
		"!\trefs/agent-checkpoints/runs/c:refs/agent-checkpoints/runs/c\t[rejected] (non-fast-forward)\n" +
		"+\trefs/agent-checkpoints/runs/d:refs/agent-checkpoints/runs/d\tabc...def (forced update)\n" +
		" \trefs/agent-checkpoints/runs/e:refs/agent-checkpoints/runs/e\tabc..def\n" +
		"Done\n"
	got := parsePorcelain([]byte(out))
	want := []PushStatus{PushNew, PushUpToDate, PushRejected, PushForced, PushUpdated}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, w := range want {
		if got[i].Status != w || got[i].Ref != RunRef(record.RunID(rune('a'+i))) {
			t.Errorf("result %d = %+v, want %s", i, got[i], w)
		}
	}
	if got[2].Summary != "[rejected] (non-fast-forward)" {
		t.Errorf("summary = %q", got[2].Summary)
	}
}

func TestValidateRemote(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"origin", "../r.git", "https://example.com/r.git", "git@host:r"} {
		if err := ValidateRemote(ok); err != nil {
			t.Errorf("ValidateRemote(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-u", "--upload-pack=x", "a\nb"} {
		if err := ValidateRemote(bad); !errors.Is(err, ErrBadRemote) {
			t.Errorf("ValidateRemote(%q) = %v, want ErrBadRemote", bad, err)
		}
	}
}

func TestParsePorcelainDeclinedAndLostRaces(t *testing.T) {
	t.Parallel()
	out := "!\trefs/agent-checkpoints/runs/a:refs/agent-checkpoints/runs/a\t[remote rejected] (pre-receive hook declined)\n" +
		"!\trefs/agent-checkpoints/runs/b:refs/agent-checkpoints/runs/b\t[remote rejected] (failed to update ref)\n" +
		"!\trefs/agent-checkpoints/runs/c:refs/agent-checkpoints/runs/c\t[remote rejected] (cannot lock ref 'refs/agent-checkpoints/runs/c': is at 1 but expected 2)\n" +
		"!\trefs/agent-checkpoints/runs/d:refs/agent-checkpoints/runs/d\t[rejected] (fetch first)\n"
	got := parsePorcelain([]byte(out))
	want := []PushStatus{PushDeclined, PushRejected, PushRejected, PushRejected}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, w := range want {
		if got[i].Status != w {
			t.Errorf("%s: status %s, want %s", got[i].Summary, got[i].Status, w)
		}
	}
}

func TestPushNamesOnlyRunRefs(t *testing.T) {
	t.Parallel()
	s := &Store{} // never reaches git
	for _, ref := range []string{"refs/heads/main", "refs/tags/v1", Namespace + "quarantine/x", "refs/agent-checkpoints/runs/../x"} {
		_, err := s.pushBatch(t.Context(), "origin", []PushResult{{Ref: ref, Local: record.BlobHash(nil)}}, PushOptions{})
		if !errors.Is(err, ErrOutsideNamespace) {
			t.Errorf("pushBatch to %s = %v, want ErrOutsideNamespace", ref, err)
		}
	}
}
