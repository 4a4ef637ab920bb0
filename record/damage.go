package record

import (
	"fmt"
	"strings"
)

// A damaged run is one whose newest checkpoints name objects the
// repository lacks (deleted by git maintenance, a disk error, a
// half-copied repository). Readers take its newest intact checkpoint and
// say what is missing; repair re-points the run there.

// Missing is one object a checkpoint names that the repository lacks.
type Missing struct {
	ID   Hash
	What string // where the checkpoint names it: "commit", "tree", or a path in the checkpoint's tree
}

// String says what is missing where: "tree 1a2b…".
func (m Missing) String() string { return m.What + " " + m.ID.String() }

// DamagedCheckpoint is a checkpoint of a run that names missing objects.
type DamagedCheckpoint struct {
	Commit  Hash
	ID      CheckpointID // its checkpoint id (ckpt_007), when its record could be read
	Missing []Missing
}

// Describe names the checkpoint (its id, or "checkpoint" when its record
// is gone) and lists what it misses: "ckpt_007", "tree 1a2b…, commit 3c4d…".
func (c DamagedCheckpoint) Describe() (name, missing string) {
	name = string(c.ID)
	if name == "" {
		name = "checkpoint"
	}
	ms := make([]string, len(c.Missing))
	for i, m := range c.Missing {
		ms[i] = m.String()
	}
	return name, strings.Join(ms, ", ")
}

// Damage describes a damaged run: its damaged checkpoints, newest first,
// from the tip down, and its newest intact one.
type Damage struct {
	Run     RunID
	Tip     Hash
	Damaged []DamagedCheckpoint
	// Intact is the newest checkpoint of the chain that is complete, and
	// all of whose predecessors are (for Check); zero when there is none.
	Intact   Hash
	IntactID CheckpointID
}

// Summary says in one line what is damaged and what is read instead.
func (d *Damage) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "run %s: ", d.Run)
	for i, c := range d.Damaged {
		if i > 0 {
			b.WriteString("; ")
		}
		name, missing := c.Describe()
		fmt.Fprintf(&b, "%s (%s) names missing %s", name, c.Commit.Short(), missing)
	}
	if d.Intact.IsZero() {
		b.WriteString("; no intact checkpoint")
	} else {
		fmt.Fprintf(&b, "; newest intact checkpoint: %s (%s)", d.IntactID, d.Intact.Short())
	}
	return b.String()
}
