package gitrefs

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
)

func TestValidateRunID(t *testing.T) {
	good := []string{"r1", "run-20261202-134300-a1b2", "A.b_c-d", strings.Repeat("x", MaxRunIDLen)}
	bad := []string{"", "-x", ".x", "a..b", "a.lock", "a.", "a/b", "a b", "a:b", "a~b", "a^b", "a\\b", "ü", strings.Repeat("x", MaxRunIDLen+1)}
	for _, id := range good {
		if err := ValidateRunID(id); err != nil {
			t.Errorf("ValidateRunID(%q) = %v", id, err)
		}
	}
	for _, id := range bad {
		if err := ValidateRunID(id); !errors.Is(err, ErrBadRunID) {
			t.Errorf("ValidateRunID(%q) = %v, want ErrBadRunID", id, err)
		}
	}
}

// FuzzRunRef checks that ParseRunRef(RunRef(id)) == id for every valid id
// and, outside -short, that git check-ref-format accepts the ref.
func FuzzRunRef(f *testing.F) {
	for _, s := range []string{"r1", "a..b", "x.lock", "-x", "run-1.2_3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if ValidateRunID(id) != nil {
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
