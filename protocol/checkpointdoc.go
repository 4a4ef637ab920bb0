package protocol

import (
	"time"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// CheckpointDoc is a recorded checkpoint: the result of run.start,
// run.finish and snapshot, and an entry of the CLI's log.
type CheckpointDoc struct {
	Version      int                 `json:"version"`
	Commit       string              `json:"commit"`
	ID           record.CheckpointID `json:"id"`
	Seq          int                 `json:"seq"`
	Run          record.RunID        `json:"run"`
	Kind         string              `json:"kind"`
	Step         string              `json:"step,omitempty"`
	Label        string              `json:"label,omitempty"`
	Call         record.CallID       `json:"call,omitempty"`
	CreatedAt    time.Time           `json:"created_at"`
	Prev         string              `json:"prev,omitempty"`
	HeadCommit   string              `json:"head_commit,omitempty"`
	HeadRef      string              `json:"head_ref,omitempty"`
	IndexTree    string              `json:"index_tree"`
	WorktreeTree string              `json:"worktree_tree"`
	Partial      bool                `json:"partial,omitempty"`
	ChangedPaths int                 `json:"changed_paths"`
	Oversize     []FileRecord        `json:"oversize,omitempty"`
	Skipped      []Skipped           `json:"skipped,omitempty"`
	MessagesRef  string              `json:"messages_ref,omitempty"`
	ApprovalsRef string              `json:"approvals_ref,omitempty"`
	TraceRef     string              `json:"trace_ref,omitempty"`
	Budget       *Budget             `json:"budget,omitempty"`
	RunFinished  bool                `json:"run_finished,omitempty"`
	Changes      []Change            `json:"changes,omitempty"`
	Stats        *SnapshotStats      `json:"stats,omitempty"`
	// Unmerged is what the index held in conflict at this checkpoint.
	Unmerged *GitOperation `json:"unmerged,omitempty"`

	// Settings are the protection settings the run started with (absent
	// in runs of older versions).
	Settings *Settings `json:"settings,omitempty"`
}

// FileRecord is a file recorded by hash only (over the size limit).
type FileRecord struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Hash string `json:"hash"`
	Size int64  `json:"size"`
}

// Skipped is a path a snapshot could not record, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Budget is what the runtime reported as left; it is also the "budget"
// field of a request.
type Budget struct {
	Tokens *int64   `json:"tokens,omitempty"`
	USD    *float64 `json:"usd,omitempty"`
	Steps  *int64   `json:"steps,omitempty"`
}

// Change is one path that differs between two trees.
type Change struct {
	Path   string `json:"path"`
	Status string `json:"status"` // A, M, D, T (type or mode)
	Before string `json:"before"`
	After  string `json:"after"`
}

// SnapshotStats counts the work a snapshot did.
type SnapshotStats struct {
	Tracked   int `json:"tracked"`
	Reused    int `json:"reused"`
	Cached    int `json:"cached"`
	Hashed    int `json:"hashed"`
	Untracked int `json:"untracked"`
	Trees     int `json:"trees_written"`
}

// NewCheckpointDoc is the document of checkpoint e.
func NewCheckpointDoc(e record.Entry) CheckpointDoc {
	cp := e.Checkpoint
	out := CheckpointDoc{
		Version: DocVersion, Commit: e.Commit.String(), ID: cp.ID, Seq: cp.Seq, Run: cp.RunID,
		Kind: cp.Kind, Step: cp.StepID, Label: cp.Label, Call: cp.CallID, CreatedAt: cp.CreatedAt,
		HeadRef: cp.Head.Ref, IndexTree: cp.IndexTree.String(), WorktreeTree: cp.WorktreeTree.String(),
		Partial: cp.Partial, ChangedPaths: cp.ChangedPaths, MessagesRef: cp.MessagesRef,
		ApprovalsRef: cp.ApprovalsRef, TraceRef: cp.TraceRef, RunFinished: cp.RunFinished,
	}
	out.Unmerged = NewUnmerged(cp.Unmerged)
	if !cp.Prev.IsZero() {
		out.Prev = cp.Prev.String()
	}
	if !cp.Head.Commit.IsZero() {
		out.HeadCommit = cp.Head.Commit.String()
	}
	for _, o := range cp.Oversize {
		out.Oversize = append(out.Oversize, FileRecord{o.Path, o.Mode.String(), o.Hash.String(), o.Size})
	}
	for _, s := range cp.Skipped {
		out.Skipped = append(out.Skipped, Skipped{s.Path, s.Reason})
	}
	out.Budget = NewBudget(cp.Budget)
	if s := cp.Settings; s != nil {
		out.Settings = &Settings{Exclude: s.Exclude, MaxFileSize: s.MaxFileSize, Sources: s.Sources}
	}
	return out
}

// Settings are the protection settings a run started with.
type Settings struct {
	Exclude     []string `json:"exclude,omitempty"`
	MaxFileSize int64    `json:"max_file_size"` // bytes; -1: no limit
	Sources     []string `json:"sources,omitempty"`
}

// NewBudget is the document of b, nil when nothing was reported.
func NewBudget(b *record.Budget) *Budget {
	if b.IsZero() {
		return nil
	}
	return &Budget{Tokens: b.Tokens, USD: b.USD, Steps: b.Steps}
}

// recorded is the document of the checkpoint run's tip is at.
func recorded(run *gitguard.Run) CheckpointDoc {
	return NewCheckpointDoc(record.Entry{Commit: run.Commit, Checkpoint: run.Checkpoint})
}
