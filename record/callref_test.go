package record

import (
	"errors"
	"testing"
)

// Call references in records read back are validated like every id: a
// forged sharedWith, ownedBy or open list is corrupt data.
func TestCallRefsValidated(t *testing.T) {
	ok := FilePatch{Path: "a.txt", ToolCallID: "c1", SharedWith: []CallRef{{Run: "r2", Call: "c9"}},
		OwnedBy: &CallRef{Run: "r2", Call: "tu_b"}}
	if err := ValidatePatches("c1", []FilePatch{ok}); err != nil {
		t.Fatalf("valid refs refused: %v", err)
	}
	for name, p := range map[string]FilePatch{
		"shared run":   {Path: "a.txt", ToolCallID: "c1", SharedWith: []CallRef{{Run: "../x", Call: "c9"}}},
		"shared call":  {Path: "a.txt", ToolCallID: "c1", SharedWith: []CallRef{{Run: "r2", Call: "a/b"}}},
		"owned empty":  {Path: "a.txt", ToolCallID: "c1", OwnedBy: &CallRef{}},
		"owned dotdot": {Path: "a.txt", ToolCallID: "c1", OwnedBy: &CallRef{Run: "r..2", Call: "c"}},
	} {
		if err := ValidatePatches("c1", []FilePatch{p}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	if err := ValidateOthers("c1", []FilePatch{{Path: "a.txt", ToolCallID: "c1"}}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("others entry without an owner: %v, want ErrCorrupt", err)
	}
	if err := ValidateOthers("c1", []FilePatch{ok}); err != nil {
		t.Errorf("valid others entry refused: %v", err)
	}
	cp := Checkpoint{Version: FormatVersion, RunID: "r1", Open: []CallID{"ok", "bad/id"}, OpenKnown: true}
	if err := cp.Validate(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("open list with a bad id: %v, want ErrCorrupt", err)
	}
	if got := (CallRef{Run: "r", Call: "c"}).String(); got != "r/c" {
		t.Errorf("String = %q", got)
	}
}
