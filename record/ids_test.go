package record

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRunID(t *testing.T) {
	good := []string{"r1", "run-20261202-134300-a1b2", "A.b_c-d", strings.Repeat("x", MaxRunIDLen)}
	bad := []string{"", "-x", ".x", "a..b", "a.lock", "a.", "a/b", "a b", "a:b", "a~b", "a^b", "a\\b", "ü", strings.Repeat("x", MaxRunIDLen+1)}
	for _, s := range good {
		if id, err := ParseRunID(s); err != nil || string(id) != s {
			t.Errorf("ParseRunID(%q) = %q, %v", s, id, err)
		}
	}
	for _, s := range bad {
		if _, err := ParseRunID(s); !errors.Is(err, ErrBadRunID) {
			t.Errorf("ParseRunID(%q) = %v, want ErrBadRunID", s, err)
		}
		if err := RunID(s).Validate(); !errors.Is(err, ErrBadRunID) {
			t.Errorf("RunID(%q).Validate() = %v, want ErrBadRunID", s, err)
		}
	}
}

func TestParseCallID(t *testing.T) {
	good := []string{"c1", "toolu_01ABC", "call:3@x", "a.b-c_d", strings.Repeat("x", MaxCallIDLen)}
	bad := []string{"", "-x", ".x", "_x", "a..b", "a/b", "a b", "a\nb", "ü", strings.Repeat("x", MaxCallIDLen+1)}
	for _, s := range good {
		if id, err := ParseCallID(s); err != nil || string(id) != s {
			t.Errorf("ParseCallID(%q) = %q, %v", s, id, err)
		}
	}
	for _, s := range bad {
		if _, err := ParseCallID(s); !errors.Is(err, ErrBadCallID) {
			t.Errorf("ParseCallID(%q) = %v, want ErrBadCallID", s, err)
		}
	}
}
