package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

func newFsckCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "fsck",
		Usage:     "find runs whose checkpoints name missing objects, and repair them",
		UsageText: "gitguard fsck [--repair]",
		Description: "Checks every run: each checkpoint of its chain and every object it names.\n" +
			"A run is damaged when objects are missing (deleted by a git gc --prune=now that\n" +
			"raced a checkpoint, a disk error, a partial copy); git gc and git repack then\n" +
			"fail on it. For each damaged run fsck prints what is missing, in which\n" +
			"checkpoint, and the newest intact checkpoint (complete, with a complete history);\n" +
			"commands read the run up to that checkpoint meanwhile.\n" +
			"  --repair   re-point each damaged run at its newest intact checkpoint\n" +
			"             (compare-and-swap). The damaged tip is recorded in a blob under\n" +
			"             refs/agent-checkpoints/damaged/RUN/TIP (its commit id and what it\n" +
			"             lacked; see it with 'git cat-file -p REF'); the ref names the blob,\n" +
			"             not the commit, so that git gc works again. Only refs under\n" +
			"             refs/agent-checkpoints/ change.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "repair", Usage: "re-point damaged runs at their newest intact checkpoint"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			return runFsck(c.Context, e, c.Bool("repair"))
		},
	}
}

type jsonFsck struct {
	Version int              `json:"version"`
	Checked int              `json:"checked"`
	Repair  bool             `json:"repair"`
	Damaged []jsonDamagedRun `json:"damaged"`
}

type jsonDamagedRun struct {
	Run         record.RunID            `json:"run"`
	Tip         string                  `json:"tip"`
	Checkpoints []jsonDamagedCheckpoint `json:"checkpoints"`
	Intact      string                  `json:"intact,omitempty"`
	IntactID    record.CheckpointID     `json:"intact_checkpoint,omitempty"`
	Repaired    bool                    `json:"repaired"`
	KeptRef     string                  `json:"kept_ref,omitempty"`
	Error       string                  `json:"error,omitempty"`
}

type jsonDamagedCheckpoint struct {
	Commit     string              `json:"commit"`
	Checkpoint record.CheckpointID `json:"checkpoint,omitempty"`
	Missing    []jsonMissing       `json:"missing"`
}

type jsonMissing struct {
	ID   string `json:"id"`
	What string `json:"what"`
}

func runFsck(ctx context.Context, e *env, repair bool) error {
	g, err := e.openRecords(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	rep, err := g.Fsck(ctx, gitguard.FsckOptions{Repair: repair})
	if err != nil {
		return err
	}
	var failed error
	for _, d := range rep.Damaged {
		if d.Err != nil && failed == nil {
			failed = fmt.Errorf("run %s: %w", d.Run, d.Err)
		}
	}
	if e.json {
		out := jsonFsck{Version: jsonVersion, Checked: rep.Checked, Repair: repair, Damaged: []jsonDamagedRun{}}
		for _, d := range rep.Damaged {
			jd := jsonDamagedRun{Run: d.Run, Tip: d.Tip.String(), Repaired: d.Repaired, KeptRef: d.KeptRef, IntactID: d.IntactID}
			if !d.Intact.IsZero() {
				jd.Intact = d.Intact.String()
			}
			if d.Err != nil {
				jd.Error = d.Err.Error()
			}
			for _, c := range d.Damaged {
				jc := jsonDamagedCheckpoint{Commit: c.Commit.String(), Checkpoint: c.ID, Missing: []jsonMissing{}}
				for _, m := range c.Missing {
					jc.Missing = append(jc.Missing, jsonMissing{ID: m.ID.String(), What: m.What})
				}
				jd.Checkpoints = append(jd.Checkpoints, jc)
			}
			out.Damaged = append(out.Damaged, jd)
		}
		if err := e.printJSON(out); err != nil {
			return err
		}
		switch {
		case failed != nil:
			return &exitCodeError{exitIntegrity}
		case len(rep.Damaged) > 0 && !repair:
			return &foundError{}
		}
		return nil
	}
	w := e.text()
	for _, d := range rep.Damaged {
		fmt.Fprintf(w, "run %s: damaged\n", d.Run)
		for _, c := range d.Damaged {
			name, missing := c.Describe()
			fmt.Fprintf(w, "  %s %s: missing %s\n", name, c.Commit, missing)
		}
		if d.Intact.IsZero() {
			fmt.Fprintf(w, "  no intact checkpoint\n")
		} else {
			fmt.Fprintf(w, "  newest intact: %s %s\n", d.IntactID, d.Intact)
		}
		if d.Repaired {
			fmt.Fprintf(w, "  repaired: the run is at %s again; the damaged tip is recorded in %s\n", d.IntactID, d.KeptRef)
		}
	}
	e.say("checked %d run(s): %d damaged", rep.Checked, len(rep.Damaged))
	switch {
	case failed != nil:
		return failed
	case len(rep.Damaged) > 0 && !repair:
		return &foundError{fmt.Sprintf("%d damaged run(s); 'gitguard fsck --repair' re-points each at its newest intact checkpoint", len(rep.Damaged))}
	}
	return nil
}
