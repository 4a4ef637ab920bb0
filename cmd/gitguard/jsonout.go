package main

import (
	"encoding/json"
	"time"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/patchstore/record"
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
	Run          record.RunID      `json:"run"`
	Kind         string            `json:"kind"`
	Step         string            `json:"step,omitempty"`
	Label        string            `json:"label,omitempty"`
	Call         record.CallID     `json:"call,omitempty"`
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

func toJSONCheckpoint(e gitguard.Entry) jsonCheckpoint {
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

type jsonLedger struct {
	CallID          record.CallID   `json:"call_id"`
	Step            string          `json:"step,omitempty"`
	Tool            string          `json:"tool"`
	InputHash       string          `json:"input_hash,omitempty"`
	Input           string          `json:"input,omitempty"`
	Status          string          `json:"status"`
	Idempotency     string          `json:"idempotency,omitempty"`
	ReplayPolicy    string          `json:"replay_policy,omitempty"`
	SideEffects     []string        `json:"side_effects,omitempty"`
	Compensation    string          `json:"compensation,omitempty"`
	ApprovedBy      string          `json:"approved_by,omitempty"`
	Decision        string          `json:"decision,omitempty"`
	DecisionReason  string          `json:"decision_reason,omitempty"`
	PlannedAt       *time.Time      `json:"planned_at,omitempty"`
	StartedAt       *time.Time      `json:"started_at,omitempty"`
	FinishedAt      *time.Time      `json:"finished_at,omitempty"`
	Result          string          `json:"result,omitempty"`
	ResultRef       string          `json:"result_ref,omitempty"`
	ExitCode        *int            `json:"exit_code,omitempty"`
	Paths           []string        `json:"paths,omitempty"`
	Globs           []string        `json:"globs,omitempty"`
	Patches         int             `json:"patches"`
	Undoes          []record.CallID `json:"undoes,omitempty"`
	UncertainReason string          `json:"uncertain_reason,omitempty"`
}

func toJSONLedger(c *gitguard.RecordedCall) jsonLedger {
	l := c.Ledger
	out := jsonLedger{
		CallID: l.CallID, Step: l.StepID, Tool: l.ToolName, InputHash: l.InputHash, Input: l.Input,
		Status: string(l.Status), Idempotency: string(l.Idempotency), ReplayPolicy: string(l.ReplayPolicy),
		SideEffects: l.SideEffects, Compensation: l.Compensation, PlannedAt: l.PlannedAt, StartedAt: l.StartedAt,
		FinishedAt: l.FinishedAt, Result: l.Result, ResultRef: l.ResultRef, ExitCode: l.ExitCode,
		Paths: l.Paths, Globs: l.Globs, Patches: len(c.Patches), Undoes: l.Undoes, UncertainReason: l.UncertainReason,
	}
	if a := l.Approval; a != nil {
		out.ApprovedBy, out.Decision, out.DecisionReason = a.By, a.Decision, a.Reason
	}
	return out
}

type jsonPatch struct {
	Path       string        `json:"path"`
	Change     string        `json:"change"` // A, M, D, T
	BeforeHash string        `json:"before_hash"`
	AfterHash  string        `json:"after_hash"`
	BeforeMode string        `json:"before_mode"`
	AfterMode  string        `json:"after_mode"`
	PatchRef   string        `json:"patch_ref"`
	Binary     bool          `json:"binary,omitempty"`
	Oversize   bool          `json:"oversize,omitempty"`
	Call       record.CallID `json:"call"`
}

func toJSONPatch(p record.FilePatch) jsonPatch {
	return jsonPatch{Path: p.Path, Change: patchLetter(p), BeforeHash: p.BeforeHash.String(), AfterHash: p.AfterHash.String(),
		BeforeMode: p.BeforeMode.String(), AfterMode: p.AfterMode.String(), PatchRef: p.PatchRef.String(),
		Binary: p.Binary, Oversize: p.Oversize, Call: p.ToolCallID}
}
