package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// Request is one request line (docs/PROTOCOL.md, "Requests"). Each op reads
// the fields it needs; on the wire an unknown field is an error, so a typo
// cannot silently widen what a call captures.
type Request struct {
	ID   json.RawMessage `json:"id"` // echoed in the response
	Op   string          `json:"op"`
	Run  record.RunID    `json:"run"`
	Call record.CallID   `json:"call"`
	// call.plan, call.start
	Tool         string   `json:"tool"`
	Input        string   `json:"input"`
	InputHash    string   `json:"input_hash"`
	Idempotency  string   `json:"idempotency"`
	Replay       string   `json:"replay"`
	SideEffects  []string `json:"side_effects"`
	Compensation string   `json:"compensation"`
	Paths        []string `json:"paths"`
	Globs        []string `json:"globs"`
	// call.approve, call.deny
	By     string `json:"by"`
	Reason string `json:"reason"`
	// call.finish
	Status    string `json:"status"`
	Result    string `json:"result"`
	ResultRef string `json:"result_ref"`
	ExitCode  *int   `json:"exit_code"`
	// status, diff, undo, redo, resume
	Unrecorded *bool  `json:"unrecorded"`
	Since      string `json:"since"`
	To         string `json:"to"`
	All        bool   `json:"all"`
	DryRun     bool   `json:"dry_run"`
	Markers    bool   `json:"markers"`
	Force      bool   `json:"force"` // undo: also revert paths shared with another run's call
	// any op that records a checkpoint
	Step         string  `json:"step"`
	Label        string  `json:"label"`
	MessagesRef  string  `json:"messages_ref"`
	ApprovalsRef string  `json:"approvals_ref"`
	TraceRef     string  `json:"trace_ref"`
	Budget       *Budget `json:"budget"`
}

// parseRequest reads one request line. On error the request holds the id,
// if the line is an object that has one, so the answer can carry it.
func parseRequest(line []byte) (Request, error) {
	var r Request
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(line, &probe)
		if errors.Is(err, record.ErrBadRunID) || errors.Is(err, record.ErrBadCallID) {
			// A well-formed request naming a bad id: refused as the
			// command line refuses it.
			return Request{ID: validUTF8(probe.ID)}, err
		}
		return Request{ID: validUTF8(probe.ID)}, requestErrorf("malformed request: %v", err)
	}
	r.ID = validUTF8(r.ID)
	if dec.More() {
		return Request{ID: r.ID}, requestErrorf("malformed request: more than one JSON value on the line")
	}
	return r, nil
}

// validUTF8 is id with invalid UTF-8 replaced as the decoder replaces it
// in every other string, so that echoing it keeps the response valid JSON
// text; a missing id stays missing (null).
func validUTF8(id json.RawMessage) json.RawMessage {
	if len(id) == 0 || utf8.Valid(id) {
		return id
	}
	return bytes.ToValidUTF8(id, []byte("\uFFFD"))
}

// checkpoint is the checkpoint fields of r.
func (r *Request) checkpoint() gitguard.CheckpointOptions {
	o := gitguard.CheckpointOptions{StepID: r.Step, Label: r.Label, MessagesRef: r.MessagesRef,
		ApprovalsRef: r.ApprovalsRef, TraceRef: r.TraceRef}
	if b := r.Budget; b != nil {
		pb := record.Budget{Tokens: b.Tokens, USD: b.USD, Steps: b.Steps}
		if !pb.IsZero() {
			o.Budget = &pb
		}
	}
	return o
}

// needCall reports a request without the "call" its op needs.
func (r *Request) needCall() error {
	if r.Call == "" {
		return requestErrorf("op %s needs \"call\"", r.Op)
	}
	return nil
}

// callOptions is the call that r describes, validated; its paths are left
// to the op, which resolves them against the work tree.
func (r *Request) callOptions() (gitguard.CallOptions, error) {
	o := gitguard.CallOptions{CallID: r.Call, Tool: r.Tool, StepID: r.Step, InputHash: r.InputHash, Input: r.Input,
		Idempotency: record.Idempotency(r.Idempotency), ReplayPolicy: record.ReplayPolicy(r.Replay),
		SideEffects: r.SideEffects, Compensation: r.Compensation, Globs: r.Globs, Checkpoint: r.checkpoint()}
	if err := r.needCall(); err != nil {
		return o, err
	}
	return o, o.Validate()
}

// RequestError is a request that does not follow the protocol: a line that
// is not one JSON object, an unknown op or field, a missing field. It wraps
// gitguard.ErrUsage (exit code 2).
type RequestError struct{ msg string }

// Error returns the message of the error.
func (e *RequestError) Error() string { return e.msg }

// Unwrap makes a RequestError a usage error.
func (e *RequestError) Unwrap() error { return gitguard.ErrUsage }

func requestErrorf(format string, args ...any) error {
	return &RequestError{fmt.Sprintf(format, args...)}
}
