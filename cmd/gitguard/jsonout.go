package main

import (
	"encoding/json"
	"time"

	"github.com/gitguard/gitguard/patchstore"
)

// jsonVersion is the version of every JSON document the CLI prints.
const jsonVersion = 1

// printJSON writes v as one indented JSON document on stdout.
func (e *env) printJSON(v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

type jsonError struct {
	Version  int    `json:"version"`
	Error    string `json:"error"`
	Hint     string `json:"hint,omitempty"`
	ExitCode int    `json:"exit_code"`
}

type jsonCheckpoint struct {
	Version      int               `json:"version"`
	Commit       string            `json:"commit"`
	ID           string            `json:"id"`
	Seq          int               `json:"seq"`
	Run          string            `json:"run"`
	Kind         string            `json:"kind"`
	Step         string            `json:"step,omitempty"`
	Label        string            `json:"label,omitempty"`
	Call         string            `json:"call,omitempty"`
	CreatedAt    time.Time         `json:"created_at"`
	Prev         string            `json:"prev,omitempty"`
	HeadCommit   string            `json:"head_commit,omitempty"`
	HeadRef      string            `json:"head_ref,omitempty"`
	IndexTree    string            `json:"index_tree"`
	WorktreeTree string            `json:"worktree_tree"`
	Partial      bool              `json:"partial,omitempty"`
	ChangedPaths int               `json:"changed_paths"`
	Oversize     []jsonFileRecord  `json:"oversize,omitempty"`
	Skipped      []jsonSkipped     `json:"skipped,omitempty"`
	MessagesRef  string            `json:"messages_ref,omitempty"`
	ApprovalsRef string            `json:"approvals_ref,omitempty"`
	TraceRef     string            `json:"trace_ref,omitempty"`
	Budget       *jsonBudget       `json:"budget,omitempty"`
	RunFinished  bool              `json:"run_finished,omitempty"`
	Changes      []jsonChange      `json:"changes,omitempty"`
	Stats        *jsonSnapshotStat `json:"stats,omitempty"`
}

type jsonFileRecord struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Hash string `json:"hash"`
	Size int64  `json:"size"`
}

type jsonSkipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

type jsonBudget struct {
	Tokens *int64   `json:"tokens,omitempty"`
	USD    *float64 `json:"usd,omitempty"`
	Steps  *int64   `json:"steps,omitempty"`
}

type jsonChange struct {
	Path   string `json:"path"`
	Status string `json:"status"` // A, M, D, T (type or mode)
	Before string `json:"before"`
	After  string `json:"after"`
}

type jsonSnapshotStat struct {
	Tracked   int `json:"tracked"`
	Reused    int `json:"reused"`
	Cached    int `json:"cached"`
	Hashed    int `json:"hashed"`
	Untracked int `json:"untracked"`
	Trees     int `json:"trees_written"`
}

func toJSONCheckpoint(e patchstore.Entry) jsonCheckpoint {
	cp := e.Checkpoint
	out := jsonCheckpoint{
		Version: jsonVersion, Commit: e.Commit.String(), ID: cp.ID, Seq: cp.Seq, Run: cp.RunID,
		Kind: cp.Kind, Step: cp.StepID, Label: cp.Label, Call: cp.CallID, CreatedAt: cp.CreatedAt,
		HeadRef: cp.Head.Ref, IndexTree: cp.IndexTree.String(), WorktreeTree: cp.WorktreeTree.String(),
		Partial: cp.Partial, ChangedPaths: cp.ChangedPaths, MessagesRef: cp.MessagesRef,
		ApprovalsRef: cp.ApprovalsRef, TraceRef: cp.TraceRef, RunFinished: cp.RunFinished,
	}
	if !cp.Prev.IsZero() {
		out.Prev = cp.Prev.String()
	}
	if !cp.Head.Commit.IsZero() {
		out.HeadCommit = cp.Head.Commit.String()
	}
	for _, o := range cp.Oversize {
		out.Oversize = append(out.Oversize, jsonFileRecord{o.Path, o.Mode.String(), o.Hash.String(), o.Size})
	}
	for _, s := range cp.Skipped {
		out.Skipped = append(out.Skipped, jsonSkipped{s.Path, s.Reason})
	}
	if !cp.Budget.IsZero() {
		out.Budget = &jsonBudget{Tokens: cp.Budget.Tokens, USD: cp.Budget.USD, Steps: cp.Budget.Steps}
	}
	return out
}
