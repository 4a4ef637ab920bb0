package gitguard_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// A call id finds its run without --run: the active run first, then the
// one finished run that has it; an id in two runs is refused with both
// named, an id in none is unknown.
func TestResolveCallRun(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"})
	f.call("tu_1", []string{"a.txt"}, func() { f.write("a.txt", "one\n") })
	f.call("shared", []string{"a.txt"}, func() { f.write("a.txt", "two\n") })
	if _, err := f.g.FinishRun(f.ctx, f.run, gitguard.CheckpointOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.g.StartRun(f.ctx, "second", gitguard.CheckpointOptions{}); err != nil {
		t.Fatal(err)
	}
	f.run = "second"
	f.call("shared", []string{"a.txt"}, func() { f.write("a.txt", "three\n") })
	f.call("tu_2", []string{"a.txt"}, func() { f.write("a.txt", "four\n") })

	for call, want := range map[record.CallID]record.RunID{"tu_1": "test-run", "tu_2": "second", "shared": "second"} {
		got, err := f.g.ResolveCallRun(f.ctx, "", call)
		if err != nil || got != want {
			t.Errorf("call %s: run %q, %v; want %q", call, got, err, want)
		}
	}
	if _, err := f.g.FinishRun(f.ctx, "second", gitguard.CheckpointOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := f.g.ResolveCallRun(f.ctx, "", "shared")
	if !errors.Is(err, gitguard.ErrAmbiguousCall) || !errors.Is(err, gitguard.ErrUsage) ||
		!strings.Contains(err.Error(), "test-run") || !strings.Contains(err.Error(), "second") {
		t.Errorf("call in two finished runs: %v, want an ambiguity naming both", err)
	}
	if _, err := f.g.ResolveCallRun(f.ctx, "", "nowhere"); !errors.Is(err, gitguard.ErrUnknownCall) {
		t.Errorf("unknown call: %v", err)
	}
	if got, err := f.g.ResolveCallRun(f.ctx, "test-run", "shared"); err != nil || got != "test-run" {
		t.Errorf("explicit run: %q, %v", got, err)
	}
	f.checkInvariant1()
}
