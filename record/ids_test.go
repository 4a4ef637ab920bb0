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

func TestIDsOfText(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "ok-1", "-lead", "a..b", "end.", "x.lock", "with space/and\nnewline", "ünï",
		strings.Repeat("a", 300), strings.Repeat(".", 5), "...lock", "a.lock.", "@x", "t" + strings.Repeat("b", 127) + ".."} {
		r := RunIDOf(in)
		if err := r.Validate(); err != nil {
			t.Errorf("RunIDOf(%q) = %q: %v", in, r, err)
		}
		c := CallIDOf(in)
		if err := c.Validate(); err != nil {
			t.Errorf("CallIDOf(%q) = %q: %v", in, c, err)
		}
		if _, err := ParseRunID(in); err == nil && string(r) != in {
			t.Errorf("RunIDOf(%q) = %q, want a valid id unchanged", in, r)
		}
		if _, err := ParseCallID(in); err == nil && string(c) != in {
			t.Errorf("CallIDOf(%q) = %q, want a valid id unchanged", in, c)
		}
	}
}
