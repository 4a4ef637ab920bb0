package gitguard_test

import (
	"errors"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// TestPruneTakesConfiguredRetention: Prune without a rule applies the
// retention the configuration sets (here git config), whoever calls it —
// the command, the protocol or a Go runtime — and says where the rule came
// from; without configured retention it still refuses to guess.
func TestPruneTakesConfiguredRetention(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"})
	if _, err := f.g.Prune(f.ctx, gitguard.PruneOptions{DryRun: true}); !errors.Is(err, gitguard.ErrNoPruneRule) {
		t.Fatalf("prune without a rule or retention: %v, want ErrNoPruneRule", err)
	}
	for _, id := range []string{"older-1", "older-2"} {
		if _, _, err := f.g.Snapshot(f.ctx, record.RunID(id), gitguard.CheckpointOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	f.repo.Git("config", "gitguard.retentionKeep", "1")
	f.reopen()
	rep, err := f.g.Prune(f.ctx, gitguard.PruneOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RulesFrom == "" {
		t.Errorf("RulesFrom is empty; want the configuration's source")
	}
	// keep = 1 keeps the newest run (older-2) and, always, the active one
	// (the oldest here).
	if len(rep.Deleted) != 1 || rep.Deleted[0].ID != "older-1" {
		t.Fatalf("deleted %+v, want older-1 alone", rep.Deleted)
	}
	// A rule given in the options wins over the configuration.
	keep := 3
	rep, err = f.g.Prune(f.ctx, gitguard.PruneOptions{Keep: &keep, DryRun: true})
	if err != nil || rep.RulesFrom != "" || len(rep.Deleted) != 0 {
		t.Fatalf("prune --keep 3: %+v, %v; want nothing deleted, rules from the options", rep, err)
	}
}
