package conflict

import (
	"testing"

	"github.com/gitguard/gitguard/record"
)

func st(mode record.Mode, b byte) record.State {
	if mode == record.ModeNone {
		return record.State{}
	}
	var h record.Hash
	h[0] = b
	return record.State{Mode: mode, Hash: h}
}

func TestClassify(t *testing.T) {
	absent := record.State{}
	a, b, c := st(record.ModeFile, 1), st(record.ModeFile, 2), st(record.ModeFile, 3)
	aExec := st(record.ModeExec, 1)
	link := st(record.ModeSymlink, 2)
	tests := []struct {
		name                   string
		before, after, current record.State
		want                   State
	}{
		{"modified, untouched since", a, b, b, Applied},
		{"modified, put back", a, b, a, Reapplyable},
		{"modified, edited by someone else", a, b, c, Conflicted},
		{"created, in place", absent, b, b, Applied},
		{"created, deleted since", absent, b, absent, Reapplyable},
		{"created, edited since", absent, b, c, Conflicted},
		{"deleted, still gone", a, absent, absent, Applied},
		{"deleted, restored", a, absent, a, Reapplyable},
		{"deleted, recreated differently", a, absent, c, Conflicted},
		{"mode change, in place", a, aExec, aExec, Applied},
		{"mode change, mode put back", a, aExec, a, Reapplyable},
		{"mode change, content edited", a, aExec, st(record.ModeExec, 3), Conflicted},
		{"same content, other mode than after", a, b, st(record.ModeExec, 2), Conflicted},
		{"symlink retarget, in place", st(record.ModeSymlink, 1), link, link, Applied},
		{"file became a symlink with the same blob", a, b, link, Conflicted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Classify(tt.before, tt.after, tt.current); got != tt.want {
				t.Errorf("Classify = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestStateText(t *testing.T) {
	for s, want := range map[State]string{Applied: "applied", Reapplyable: "reapplyable", Conflicted: "conflicted", 7: "State(7)"} {
		if got := s.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(s), got, want)
		}
		b, _ := s.MarshalText()
		if string(b) != want {
			t.Errorf("MarshalText = %q, want %q", b, want)
		}
	}
}

// FuzzClassify checks the invariants: exactly one class per path, Applied
// iff current equals after, Reapplyable iff current equals before and not
// after, and the same answer every time.
func FuzzClassify(f *testing.F) {
	f.Add(uint8(1), uint8(1), uint8(2), uint8(1), uint8(2), uint8(1))
	f.Add(uint8(0), uint8(0), uint8(1), uint8(2), uint8(0), uint8(0))
	f.Add(uint8(1), uint8(1), uint8(1), uint8(2), uint8(1), uint8(3))
	modes := []record.Mode{record.ModeNone, record.ModeFile, record.ModeExec, record.ModeSymlink, record.ModeGitlink}
	f.Fuzz(func(t *testing.T, bm, bh, am, ah, cm, ch uint8) {
		before := st(modes[int(bm)%len(modes)], bh%4)
		after := st(modes[int(am)%len(modes)], ah%4)
		current := st(modes[int(cm)%len(modes)], ch%4)
		if before == after {
			t.Skip("a patch always changes something")
		}
		got := Classify(before, after, current)
		if got != Classify(before, after, current) {
			t.Fatal("not deterministic")
		}
		if (got == Applied) != (current == after) {
			t.Fatalf("Applied=%v but current==after is %v", got == Applied, current == after)
		}
		if (got == Reapplyable) != (current == before && current != after) {
			t.Fatalf("Reapplyable=%v, current==before is %v", got == Reapplyable, current == before)
		}
		if got != Applied && got != Reapplyable && got != Conflicted {
			t.Fatalf("no class: %v", got)
		}
	})
}
