package record

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestUnmergedValidate: a well-formed record passes and survives a JSON
// round trip through Decode; each kind of damage is refused as ErrCorrupt.
func TestUnmergedValidate(t *testing.T) {
	h := BlobHash([]byte("x\n"))
	st := func(n int, m Mode) Stage { return Stage{Stage: n, Mode: m, Hash: h} }
	good := Unmerged{Operation: OpMerge, Paths: []UnmergedPath{
		{Path: "a.txt", Stages: []Stage{st(1, ModeFile), st(2, ModeFile), st(3, ModeExec)}},
		{Path: "dir/b", Stages: []Stage{st(1, ModeSymlink), st(2, ModeSymlink)}},
		{Path: "sub", Stages: []Stage{st(2, ModeGitlink), st(3, ModeGitlink)}},
	}}
	if err := good.Validate(); err != nil {
		t.Fatalf("good record refused: %v", err)
	}
	cp := Checkpoint{Version: FormatVersion, RunID: "r1", Unmerged: &good}
	data, err := json.Marshal(cp)
	if err != nil {
		t.Fatal(err)
	}
	var back Checkpoint
	if err := Decode(data, &back, "checkpoint.json"); err != nil {
		t.Fatal(err)
	}
	if err := back.Validate(); err != nil || back.Unmerged == nil || len(back.Unmerged.Paths) != 3 ||
		back.Unmerged.Paths[0].Conflict() != "both modified" || back.Unmerged.Paths[1].Conflict() != "deleted by them" ||
		back.Unmerged.Paths[2].Conflict() != "both added" {
		t.Fatalf("round trip: %+v, %v", back.Unmerged, err)
	}

	bad := map[string]Unmerged{
		"unknown operation": {Operation: "octopus", Paths: good.Paths[:1]},
		"dot-git path":      {Paths: []UnmergedPath{{Path: ".git/hooks/pre-commit", Stages: []Stage{st(2, ModeFile)}}}},
		"dot-dot path":      {Paths: []UnmergedPath{{Path: "../x", Stages: []Stage{st(2, ModeFile)}}}},
		"absolute path":     {Paths: []UnmergedPath{{Path: "/etc/passwd", Stages: []Stage{st(2, ModeFile)}}}},
		"repeated path":     {Paths: []UnmergedPath{good.Paths[0], good.Paths[0]}},
		"unsorted":          {Paths: []UnmergedPath{good.Paths[1], good.Paths[0]}},
		"no stages":         {Paths: []UnmergedPath{{Path: "a"}}},
		"stage 0":           {Paths: []UnmergedPath{{Path: "a", Stages: []Stage{st(0, ModeFile)}}}},
		"stage 4":           {Paths: []UnmergedPath{{Path: "a", Stages: []Stage{st(4, ModeFile)}}}},
		"stages repeated":   {Paths: []UnmergedPath{{Path: "a", Stages: []Stage{st(2, ModeFile), st(2, ModeFile)}}}},
		"folder mode":       {Paths: []UnmergedPath{{Path: "a", Stages: []Stage{st(2, ModeTree)}}}},
		"absent mode":       {Paths: []UnmergedPath{{Path: "a", Stages: []Stage{st(2, ModeNone)}}}},
	}
	for name, u := range bad {
		t.Run(name, func(t *testing.T) {
			if err := u.Validate(); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Validate = %v, want ErrCorrupt", err)
			}
			c := Checkpoint{Version: FormatVersion, RunID: "r1", Unmerged: &u}
			if err := c.Validate(); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Checkpoint.Validate = %v, want ErrCorrupt", err)
			}
		})
	}
}
