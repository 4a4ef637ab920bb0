package protocol

import (
	"time"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// RunPicked says, in the documents of status, diff, undo, redo, resume
// and ledger, that no run was named and none was active, so the command
// read the newest run of this work tree.
type RunPicked struct {
	Run record.RunID `json:"run"`
	// Reason is "newest": the newest run of this work tree, none active.
	Reason string `json:"reason"`
	// EndedAt is when that run finished (or was last recorded, when it
	// did not finish).
	EndedAt time.Time `json:"ended_at,omitzero"`
	// EndedWith names the other runs of this work tree that ended at the
	// same time; --run names one of them.
	EndedWith []record.RunID `json:"ended_with,omitempty"`
}

// NewRunPicked returns the document of p, or nil when the run was named
// or active.
func NewRunPicked(p gitguard.RunPick) *RunPicked {
	if !p.Newest {
		return nil
	}
	return &RunPicked{Run: p.ID, Reason: "newest", EndedAt: p.EndedAt.UTC(), EndedWith: p.EndedWith}
}
