package record

import (
	"errors"
	"strings"
	"testing"
)

func TestSettingsValidate(t *testing.T) {
	t.Parallel()
	many := make([]string, maxSettingsGlobs+1)
	for i := range many {
		many[i] = "x/**"
	}
	tests := []struct {
		name string
		s    Settings
		ok   bool
	}{
		{"default", Settings{MaxFileSize: 64 << 20}, true},
		{"unlimited with globs", Settings{MaxFileSize: -1, Exclude: []string{"node_modules/**"}}, true},
		{"zero size", Settings{MaxFileSize: 0}, false},
		{"below -1", Settings{MaxFileSize: -2}, false},
		{"empty glob", Settings{MaxFileSize: 1, Exclude: []string{""}}, false},
		{"NUL in glob", Settings{MaxFileSize: 1, Exclude: []string{"a\x00b"}}, false},
		{"long glob", Settings{MaxFileSize: 1, Exclude: []string{strings.Repeat("a", maxSettingsGlobLen+1)}}, false},
		{"too many globs", Settings{MaxFileSize: 1, Exclude: many}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.s.Validate()
			if (err == nil) != tt.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tt.ok)
			}
			// Read back inside a checkpoint, a bad one is corrupt data.
			cp := Checkpoint{Version: FormatVersion, RunID: "r1", Settings: &tt.s}
			err = cp.Validate()
			if tt.ok && err != nil {
				t.Fatalf("Checkpoint.Validate() = %v, want nil", err)
			}
			if !tt.ok && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Checkpoint.Validate() = %v, want ErrCorrupt", err)
			}
		})
	}
}
