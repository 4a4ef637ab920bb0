package gitrefs

import (
	"context"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/record"
)

// FuzzRunRef checks that ParseRunRef(RunRef(id)) == id for every valid id
// and, outside -short, that git check-ref-format accepts the ref.
func FuzzRunRef(f *testing.F) {
	for _, s := range []string{"r1", "a..b", "x.lock", "-x", "run-1.2_3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id := record.RunID(s)
		if id.Validate() != nil {
			if _, ok := ParseRunRef(RunRef(id)); ok {
				t.Fatalf("ParseRunRef accepted invalid id %q", id)
			}
			return
		}
		got, ok := ParseRunRef(RunRef(id))
		if !ok || got != id {
			t.Fatalf("ParseRunRef(RunRef(%q)) = %q, %v", id, got, ok)
		}
		if testing.Short() {
			return
		}
		if _, err := git.Run(context.Background(), "", "check-ref-format", RunRef(id)); err != nil {
			t.Fatalf("git check-ref-format refuses %s: %v", RunRef(id), err)
		}
	})
}
