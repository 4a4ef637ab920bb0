package attribution_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/attribution"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// Two runs taking turns with whole-workspace calls read each other's tip
// at every call: the memory of tips keeps the newest of each run, not one
// record per call, so a daemon's memory does not grow with the events.
func TestTipsHoldNewestPerRun(t *testing.T) {
	attribution.ForgetTips()
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("init")
	ctx := context.Background()
	g, err := gitguard.Open(ctx, r.Dir, gitguard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	// Each run starts with its first call, as an agent's session does.
	runs := []record.RunID{"one", "two"}
	for i := range 8 {
		for _, run := range runs {
			id := record.CallID(fmt.Sprintf("sh-%d", i))
			if _, err := g.CallStart(ctx, run, gitguard.CallOptions{CallID: id, Tool: "Bash"}); err != nil {
				t.Fatal(err)
			}
			r.Write("a.txt", fmt.Sprintf("%s %d\n", run, i))
			if _, err := g.CallFinish(ctx, run, id, gitguard.FinishOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := attribution.TipsHeld(); n < 1 || n > len(runs) {
		t.Fatalf("%d run tips remembered after 16 calls of %d runs, want one per run", n, len(runs))
	}
}
