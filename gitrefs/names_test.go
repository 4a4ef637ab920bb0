package gitrefs

import (
	"context"
	"strings"
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

func TestRunRefCaseSafe(t *testing.T) {
	t.Parallel()
	ids := []record.RunID{"r1", "R1", "aB", "Ab", "AB", "ab", "run-X.y_Z"}
	seen := map[string]record.RunID{}
	for _, id := range ids {
		ref := RunRef(id)
		if strings.ToLower(ref) != ref {
			t.Errorf("RunRef(%q) = %q: not all lowercase", id, ref)
		}
		if other, dup := seen[strings.ToLower(ref)]; dup {
			t.Errorf("RunRef(%q) and RunRef(%q) differ only in case", id, other)
		}
		seen[strings.ToLower(ref)] = id
		if got, ok := ParseRunRef(ref); !ok || got != id {
			t.Errorf("ParseRunRef(%q) = %q, %v; want %q", ref, got, ok, id)
		}
	}
	for _, tc := range []struct {
		ref  string
		want record.RunID
		ok   bool
	}{
		{runsPrefix + "R1", "R1", true}, // an older writer's name
		{runsPrefix + "=r1", "R1", true},
		{runsPrefix + "=R1", "", false},
		{runsPrefix + "a=", "", false},
		{runsPrefix + "=1", "", false},
		{runsPrefix + "=a=B", "", false},
	} {
		got, ok := ParseRunRef(tc.ref)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseRunRef(%q) = %q, %v; want %q, %v", tc.ref, got, ok, tc.want, tc.ok)
		}
	}
}
